package sheep

import (
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// TestPressureAgainstOracle checks the tray-pressure bound state by state:
// random walks through random small levels, and every state the bound
// calls dead must lose according to the brute-force oracle. It must fire,
// with three or more free slots, where the search uses it.
func TestPressureAgainstOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 4))
	fired, wideFired, checked := 0, 0, 0
	for k := range 1500 {
		l := mustParse(t, smallLevel(rng))
		o := newOracle(l)
		for range 20 {
			b := newBoard(l)
			for b.left > 0 {
				legal := legalClicks(b)
				if len(legal) == 0 {
					break
				}
				b.apply(legal[rng.IntN(len(legal))])
				if b.left == 0 {
					break
				}
				checked++
				if b.tripleWithin() {
					continue
				}
				fired++
				if l.slots-b.traySize >= 3 {
					wideFired++
				}
				var line []int
				if o.dfs(uint32(b.removed[0]), &line) {
					t.Fatalf("level %d %s: bound prunes a winnable state (removed %b, tray %d)", k, l.Canonical(), b.removed[0], b.traySize)
				}
				break
			}
		}
	}
	t.Logf("%d states checked, bound fired on %d (%d with three or more free slots)", checked, fired, wideFired)
	if wideFired == 0 {
		t.Fatal("the bound never fired with three or more free slots")
	}
}

// TestPressurePrunesInSearch: on random small levels the search with the
// bound reaches the oracle's verdicts and prunes states, in fewer nodes in
// all than without it.
func TestPressurePrunesInSearch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 5))
	var pruned, withNodes, withoutNodes int64
	for k := range 1000 {
		l := mustParse(t, smallLevel(rng))
		if precheckFail(l) != "" {
			continue
		}
		want := newOracle(l).solve() != nil
		for _, on := range []bool{true, false} {
			m, _ := solver.NewMeter(t.Context(), solver.Options{})
			s := newSearch(l, m, schedule{noPressure: !on})
			out := s.solve()
			if (out == outSolved) != want || (out != outSolved && out != outExhausted) {
				t.Fatalf("level %d %s: pressure %v: outcome %d, oracle solvable %v", k, l.Canonical(), on, out, want)
			}
			if out == outSolved {
				if _, err := replay(l, s.path); err != nil {
					t.Fatalf("level %d: line does not replay: %v", k, err)
				}
			}
			if on {
				pruned += s.signals.pressured
				withNodes += m.Stats(0).Nodes
			} else {
				withoutNodes += m.Stats(0).Nodes
			}
		}
	}
	t.Logf("pressure pruned %d states; nodes %d with the bound, %d without", pruned, withNodes, withoutNodes)
	if pruned == 0 || withNodes >= withoutNodes {
		t.Fatalf("pressure pruned %d states; nodes %d with, %d without", pruned, withNodes, withoutNodes)
	}
}
