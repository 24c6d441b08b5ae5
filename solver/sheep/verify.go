package sheep

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// Verify replays res.Plan and checks every claim of res: a solved plan
// clears every tile; an unknown or unsolvable plan is a never-losing
// partial line; details match the replay; an unsolvable precheck proof
// names a precheck that rejects the level, and no plan wins.
func Verify(l *Level, res solver.Result) error {
	var plan []string
	if len(res.Plan) > 0 {
		if err := json.Unmarshal(res.Plan, &plan); err != nil {
			return fmt.Errorf("sheep: plan is not an array of tile ids: %w", err)
		}
	}
	o, err := Replay(l, plan)
	if err != nil {
		return err
	}
	if res.Value != nil || res.Optimal {
		return fmt.Errorf("sheep: results carry no value and no optimality claim")
	}
	if err := checkDetails(l, res.Details, o.Cleared); err != nil {
		return err
	}
	switch res.Verdict {
	case solver.Solved:
		if !o.Won {
			return fmt.Errorf("sheep: solved plan ends with %d of %d tiles cleared (lost: %t)", o.Cleared, len(l.tiles), o.Lost)
		}
		if res.Proof != "" {
			return fmt.Errorf("sheep: solved result with proof %q", res.Proof)
		}
		return nil
	case solver.Unsolvable, solver.Unknown:
		if o.Lost || o.Won {
			return fmt.Errorf("sheep: %s result's partial line must neither lose nor win (lost %t, won %t)", res.Verdict, o.Lost, o.Won)
		}
		if res.Verdict == solver.Unknown {
			if res.Proof != "" {
				return fmt.Errorf("sheep: unknown result with proof %q", res.Proof)
			}
			return nil
		}
		return checkProof(l, res.Proof, len(plan))
	}
	return fmt.Errorf("sheep: unknown verdict %q", res.Verdict)
}

func checkProof(l *Level, proof string, planLen int) error {
	if proof == "exhaustive" {
		if precheckFail(l) != "" {
			return fmt.Errorf("sheep: exhaustive proof for a level a precheck rejects")
		}
		return nil
	}
	if list, ok := strings.CutPrefix(proof, "projection:types="); ok {
		if precheckFail(l) != "" || !checkProjectionProof(l, list) {
			return fmt.Errorf("sheep: proof %q: that projection is not proven unsolvable", proof)
		}
		return nil
	}
	if strings.HasPrefix(proof, "retrograde:") {
		if precheckFail(l) != "" || !checkRetroProof(l, proof) {
			return fmt.Errorf("sheep: proof %q: no such empty layer of the retrograde search", proof)
		}
		return nil
	}
	name, ok := strings.CutPrefix(proof, "precheck:")
	if !ok {
		return fmt.Errorf("sheep: unsolvable result with unknown proof %q", proof)
	}
	for _, p := range prechecks {
		if p.name == name {
			if !p.dead(l) {
				return fmt.Errorf("sheep: precheck %q does not reject this level", name)
			}
			if planLen != 0 {
				return fmt.Errorf("sheep: precheck result with a plan")
			}
			return nil
		}
	}
	return fmt.Errorf("sheep: unknown precheck %q", name)
}

// checkDetails accepts the result's numbers as Go ints or as float64 (a
// result read back from JSON). "ignored_fields" is optional: a level read
// back from its canonical form no longer knows what its file carried;
// so is "portfolio", which of two searches decided (portfolio.go).
func checkDetails(l *Level, d map[string]any, cleared int) error {
	want := 2
	if v, ok := d["ignored_fields"]; ok {
		if !stringList(v) {
			return fmt.Errorf("sheep: details.ignored_fields = %v, want a list of field names", v)
		}
		want++
	}
	if v, ok := d["portfolio"]; ok {
		if v != "own" && v != "helper" {
			return fmt.Errorf("sheep: details.portfolio = %v, want own or helper", v)
		}
		want++
	}
	if len(d) != want {
		return fmt.Errorf("sheep: details must hold tiles, cleared and optionally ignored_fields and portfolio, got %v", d)
	}
	if v, ok := solver.DetailInt(d["tiles"]); !ok || v != int64(len(l.tiles)) {
		return fmt.Errorf("sheep: details.tiles = %v, level has %d", d["tiles"], len(l.tiles))
	}
	if v, ok := solver.DetailInt(d["cleared"]); !ok || v != int64(cleared) {
		return fmt.Errorf("sheep: details.cleared = %v, plan clears %d", d["cleared"], cleared)
	}
	return nil
}

// stringList reports whether v is a list of strings, as built ([]string)
// or read back from JSON ([]any).
func stringList(v any) bool {
	switch v := v.(type) {
	case []string:
		return true
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}
