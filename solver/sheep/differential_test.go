package sheep

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// TestDifferentialOracle runs 5,000 random small levels (fixed seed)
// through the solver and the oracle: same verdict, every plan replayed,
// every precheck rejection confirmed by the oracle.
func TestDifferentialOracle(t *testing.T) {
	t.Parallel()
	const levels = 5000
	rng := rand.New(rand.NewPCG(5, 2026))
	counts := map[string]int{}
	for k := range levels {
		data := smallLevel(rng)
		l := mustParse(t, data)
		res := solveVerified(t, l, solver.Options{})
		// Many passes: soundness must not depend on the move order or
		// on which pass ends the search.
		tiny := solveVerifiedWith(t, l, solver.Options{}, tinySchedule)
		o := newOracle(l)
		st := time.Now()
		line := o.solve()
		if d := time.Since(st); d > 50*time.Millisecond {
			t.Logf("slow oracle %v: %s", d, data)
		}
		if line != nil {
			ids := make([]string, len(line))
			for j, i := range line {
				ids[j] = l.tiles[i].ID
			}
			if out, err := Replay(l, ids); err != nil || !out.Won {
				t.Fatalf("level %d: oracle line does not win: %v %+v", k, err, out)
			}
		}
		want := solver.Unsolvable
		if line != nil {
			want = solver.Solved
		}
		if res.Verdict != want || tiny.Verdict != want {
			t.Fatalf("level %d %s: solver %s (%s), with restarts %s (%s), oracle %s", k, data, res.Verdict, res.Proof, tiny.Verdict, tiny.Proof, want)
		}
		for _, p := range prechecks {
			if p.dead(l) && line != nil {
				t.Fatalf("level %d %s: precheck %s rejects a solvable level", k, data, p.name)
			}
		}
		counts[string(res.Verdict)+" "+res.Proof]++
		if strings.HasPrefix(tiny.Proof, "projection:") {
			counts["projection (restart schedule)"]++
		}
	}
	t.Logf("%d levels: %v", levels, counts)
	if counts["solved "] < levels/2 || counts["unsolvable exhaustive"] < levels/20 ||
		counts["unsolvable precheck:type-count"] == 0 || counts["unsolvable precheck:slots"] == 0 ||
		counts["projection (restart schedule)"] == 0 {
		t.Fatalf("random levels do not cover the verdicts: %v", counts)
	}
}
