package zuma

import (
	"errors"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Verify replays res.Plan on lvl and checks every claim of res: verdict,
// value, bounds and details. It is cheap: one replay plus, for claims of
// optimality or unsolvability, an O(n³) bound check on boards of at most
// [MaxBoard]·2 balls.
func Verify(lvl *Level, res solver.Result) error {
	if err := verifyMode(lvl, res); err != nil {
		return err
	}
	switch res.Verdict {
	case solver.Solved:
		return verifySolved(lvl, res)
	case solver.Unsolvable:
		return verifyUnsolvable(lvl, res)
	case solver.Unknown:
		if res.Plan == nil {
			if res.Value != nil {
				return errors.New("zuma: value without a plan")
			}
			return nil
		}
		if res.Optimal {
			return errors.New("zuma: unknown result claims optimal")
		}
		out, err := replayResult(lvl, res)
		if err != nil || res.Value == nil {
			return err
		}
		return verifyValue(lvl, res, out)
	default:
		return fmt.Errorf("zuma: verdict %q", res.Verdict)
	}
}

func verifyMode(lvl *Level, res solver.Result) error {
	mode, _ := res.Details["mode"].(string)
	if mode != string(lvl.Mode) {
		return fmt.Errorf("zuma: details.mode %q, level is %q", mode, lvl.Mode)
	}
	return nil
}

func replayResult(lvl *Level, res solver.Result) (Outcome, error) {
	plan, err := DecodePlan(res.Plan)
	if err != nil {
		return Outcome{}, fmt.Errorf("zuma: %w", err)
	}
	out, err := Replay(lvl, plan)
	if err != nil {
		return Outcome{}, fmt.Errorf("zuma: replay: %w", err)
	}
	return out, nil
}

func verifySolved(lvl *Level, res solver.Result) error {
	if res.Plan == nil || res.Value == nil {
		return errors.New("zuma: solved without plan or value")
	}
	out, err := replayResult(lvl, res)
	if err != nil {
		return err
	}
	if err := verifyValue(lvl, res, out); err != nil {
		return err
	}
	if err := verifyBounds(res); err != nil {
		return err
	}
	if lvl.Mode != ModeAmmo && res.Optimal && len(lvl.Board) <= 2*MaxBoard {
		if lb := rootBound(lvl); int64(lb) > *res.Value {
			return fmt.Errorf("zuma: value %d claimed optimal, below the lower bound %d", *res.Value, lb)
		}
	}
	return nil
}

func verifyValue(lvl *Level, res solver.Result, out Outcome) error {
	if lvl.Mode != ModeAmmo {
		if !out.Cleared() {
			return fmt.Errorf("zuma: plan leaves %q on the board", out.Board)
		}
		if *res.Value != int64(out.Shots) {
			return fmt.Errorf("zuma: value %d, plan has %d moves", *res.Value, out.Shots)
		}
		return nil
	}
	if *res.Value != int64(out.Vanished) {
		return fmt.Errorf("zuma: value %d, plan vanishes %d balls", *res.Value, out.Vanished)
	}
	if cleared, ok := res.Details["cleared"].(bool); !ok || cleared != out.Cleared() {
		return fmt.Errorf("zuma: details.cleared %v, replay ends with %q", res.Details["cleared"], out.Board)
	}
	if shots, ok := solver.DetailInt(res.Details["shots"]); !ok || shots != int64(out.Shots) {
		return fmt.Errorf("zuma: details.shots %v, plan has %d shots", res.Details["shots"], out.Shots)
	}
	return nil
}

func verifyBounds(res solver.Result) error {
	lo, hi, v := res.Stats.LowerBound, res.Stats.UpperBound, *res.Value
	if lo != nil && *lo > v {
		return fmt.Errorf("zuma: lower bound %d above value %d", *lo, v)
	}
	if hi != nil && *hi < v {
		return fmt.Errorf("zuma: upper bound %d below value %d", *hi, v)
	}
	if res.Optimal && lo != nil && *lo != v {
		return fmt.Errorf("zuma: optimal value %d but lower bound %d", v, *lo)
	}
	return nil
}

func verifyUnsolvable(lvl *Level, res solver.Result) error {
	if lvl.Mode != ModeHand {
		return fmt.Errorf("zuma: %s mode is never unsolvable", lvl.Mode)
	}
	if res.Plan != nil || res.Value != nil || res.Proof != "exhaustive" {
		return errors.New("zuma: unsolvable needs proof exhaustive and no plan or value")
	}
	if fillFits(lvl) {
		return errors.New("zuma: unsolvable, yet filling every run from the left clears the board")
	}
	return nil
}

// fillFits reports whether the hand can fill every run of the board to 3,
// which clears it (fill the leftmost run each time: no joins happen).
func fillFits(lvl *Level) bool {
	var need [26]int
	b := lvl.Board
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && b[j] == b[i] {
			j++
		}
		need[b[i]-'A'] += 3 - (j - i)
		i = j
	}
	var have [26]int
	for i := 0; i < len(lvl.Hand); i++ {
		have[lvl.Hand[i]-'A']++
	}
	for c := range need {
		if need[c] > have[c] {
			return false
		}
	}
	return true
}
