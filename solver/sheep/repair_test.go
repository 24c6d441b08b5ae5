package sheep

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/repair"
)

// TestRepairAgreesWithTheOracle repairs 200 small unsolvable levels with
// swaps (size 1) and checks every answer against the brute-force oracle,
// which decides every swap of the level: the fixes returned are exactly
// the first solvable swaps in the repair's order (so none leaves the
// level unsolvable and none is missed), each with a plan that replays,
// and a level with no solvable swap gets none, with the search complete.
// On the first 20 of those without a fix, rotations of three (size 2)
// are checked the same way.
func TestRepairAgreesWithTheOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 11))
	levels, fixed, rotated := 0, 0, 0
	for levels < 200 {
		l, err := Parse(smallLevel(rng))
		if err != nil {
			t.Fatal(err)
		}
		if len(l.tiles) > 15 || newOracle(l).solve() != nil {
			continue // the oracle's memo has 2^tiles bits
		}
		levels++
		n := checkRepair(t, l, 1)
		if n > 0 {
			fixed++
		} else if rotated < 20 {
			rotated++
			checkRepair(t, l, 2)
		}
	}
	t.Logf("%d unsolvable levels, %d fixed by a swap, %d checked with rotations of three", levels, fixed, rotated)
	if fixed < 10 || rotated < 10 {
		t.Fatalf("%d levels fixed by a swap and %d checked with rotations: the family does not exercise both", fixed, rotated)
	}
}

// checkRepair runs the repair of l up to edits of the given size (all
// smaller sizes having no fix) and compares it with the oracle on every
// edit of that size. It returns the fixes found.
func checkRepair(t *testing.T, l *Level, size int) int {
	t.Helper()
	k := kind{}
	var solvable []int // oracle: indexes (in the repair's order, all sizes) of the solvable edits of this size
	i := 0
	for s := 1; s <= size; s++ {
		for e := range k.Edits(l, s) {
			if s == size {
				el, err := e.Apply()
				if err != nil {
					t.Fatal(err)
				}
				if newOracle(el.(*Level)).solve() != nil {
					solvable = append(solvable, i)
				}
			}
			i++
		}
	}
	rep, err := repair.Run(context.Background(), k, repair.Request{Level: l, MaxEdits: size, Count: 3}, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, f := range rep.Fixes {
		got = append(got, f.Index)
		if f.Result.Verdict != solver.Solved || Verify(f.Level.(*Level), f.Result) != nil || newOracle(f.Level.(*Level)).solve() == nil {
			t.Fatalf("%s: fix %q (%d) is not solvable: %s", l.Canonical(), f.Desc, f.Index, f.Result.Verdict)
		}
	}
	want := solvable[:min(3, len(solvable))]
	if !slices.Equal(got, want) {
		t.Fatalf("%s: size %d: fixes %v, oracle's first solvable edits %v", l.Canonical(), size, got, want)
	}
	if len(got) == 0 && (!rep.Complete || rep.Rejected[repair.RejectUnknown] > 0) {
		t.Fatalf("%s: no fix, but the search was not complete (%+v)", l.Canonical(), rep)
	}
	return len(got)
}
