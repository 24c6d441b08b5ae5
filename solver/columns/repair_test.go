package columns

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/repair"
)

// TestRepairAgreesWithTheOracle repairs small unsolvable clear-goal levels
// (up to 3 pieces) and checks against the oracle, which decides every
// edit: the fixes are exactly the first winnable edits in the repair's
// order, each with a plan that replays, and a level without one gets
// none from a complete search.
func TestRepairAgreesWithTheOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 12))
	k := New().(*kind)
	levels, fixed := 0, 0
	for levels < 60 {
		base := smallLevel(t, rng, allRules[rng.IntN(2)])
		if len(base.Pieces) > 3 {
			continue
		}
		l := withGoal(t, base, GoalClear, 0)
		if oracleSolve(l).clear {
			continue
		}
		levels++
		var solvable []int
		i := 0
		for e := range k.Edits(l, 1) {
			el, err := e.Apply()
			if err != nil {
				t.Fatal(err)
			}
			if oracleSolve(el.(*Level)).clear {
				solvable = append(solvable, i)
			}
			i++
		}
		rep, err := repair.Run(context.Background(), k, repair.Request{Level: l, Count: 2}, 0, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, f := range rep.Fixes {
			got = append(got, f.Index)
			if f.Result.Verdict != solver.Solved || k.Verify(f.Level, f.Result) != nil {
				t.Fatalf("%s: fix %q not solved", l.Canonical(), f.Desc)
			}
		}
		if want := solvable[:min(2, len(solvable))]; !slices.Equal(got, want) {
			t.Fatalf("%s: fixes %v, oracle's first winnable edits %v", l.Canonical(), got, want)
		}
		if len(got) > 0 {
			fixed++
		} else if !rep.Complete || rep.Rejected[repair.RejectUnknown] > 0 {
			t.Fatalf("%s: no fix from an incomplete search: %+v", l.Canonical(), rep)
		}
	}
	if fixed < 10 || fixed == levels {
		t.Fatalf("%d of %d levels fixed: the family should have both", fixed, levels)
	}
}
