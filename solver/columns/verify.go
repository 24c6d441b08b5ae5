package columns

import (
	"errors"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// ErrWrongLevel is returned when a level of another kind is passed in.
var ErrWrongLevel = errors.New("columns: level is not a columns level")

// Verify replays res.Plan and checks the verdict, value and details.
func (k *kind) Verify(lvl solver.Level, res solver.Result) error {
	l, ok := lvl.(*Level)
	if !ok {
		return ErrWrongLevel
	}
	return verifyResult(l, res)
}

func verifyResult(l *Level, res solver.Result) error {
	var plan []Move
	if len(res.Plan) > 0 {
		p, err := ParsePlan(res.Plan)
		if err != nil {
			return fmt.Errorf("columns: verify: %w", err)
		}
		plan = p
	}
	out, err := Replay(l, plan)
	if err != nil {
		return fmt.Errorf("columns: verify: %w", err)
	}
	if err := checkVerdict(l, res, out); err != nil {
		return fmt.Errorf("columns: verify: %w", err)
	}
	if res.Value == nil || *res.Value != out.Score {
		return fmt.Errorf("columns: verify: value %v, plan scores %d", fmtValue(res.Value), out.Score)
	}
	if err := checkDetails(res.Details, out); err != nil {
		return fmt.Errorf("columns: verify: details: %w", err)
	}
	return nil
}

func checkVerdict(l *Level, res solver.Result, out Outcome) error {
	switch res.Verdict {
	case solver.Solved:
		if !out.GoalMet {
			return fmt.Errorf("verdict solved but the plan does not reach the %s goal", l.Goal.Type)
		}
	case solver.Unsolvable, solver.Unknown:
		if out.GoalMet {
			return fmt.Errorf("verdict %s but the plan reaches the goal", res.Verdict)
		}
		if res.Verdict == solver.Unsolvable && res.Proof == "" {
			return errors.New("verdict unsolvable without a proof")
		}
	default:
		return fmt.Errorf("unknown verdict %q", res.Verdict)
	}
	if res.Optimal && l.Goal.Type != GoalScore {
		return fmt.Errorf("optimal is only claimed for score goals")
	}
	return nil
}

func checkDetails(d map[string]any, out Outcome) error {
	if n, ok := solver.DetailInt(d["score"]); !ok || n != out.Score {
		return fmt.Errorf("score %v, plan scores %d", d["score"], out.Score)
	}
	if met, ok := d["goal_met"].(bool); !ok || met != out.GoalMet {
		return fmt.Errorf("goal_met %v, plan gives %v", d["goal_met"], out.GoalMet)
	}
	if n, ok := solver.DetailInt(d["pieces_placed"]); !ok || n != int64(out.Placed) {
		return fmt.Errorf("pieces_placed %v, plan places %d", d["pieces_placed"], out.Placed)
	}
	// best_score may be missing: columns/1 results, stored before it was
	// reported, still verify.
	if v, present := d["best_score"]; present {
		if n, ok := solver.DetailInt(v); !ok || n < out.Score {
			return fmt.Errorf("best_score %v below the plan's score %d", v, out.Score)
		}
	}
	for key, v := range d {
		switch key {
		case "score", "best_score", "goal_met", "pieces_placed":
		case "search":
			if s, _ := v.(string); s != searchExact && s != searchBeam && s != searchPrecheck {
				return fmt.Errorf("search %v is not exact, beam or precheck", v)
			}
		default:
			return fmt.Errorf("unexpected key %q", key)
		}
	}
	return nil
}

func fmtValue(v *int64) string {
	if v == nil {
		return "missing"
	}
	return fmt.Sprint(*v)
}
