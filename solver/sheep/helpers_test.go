package sheep

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

// smallLevel returns a random native-format level for the oracle: at most
// 24 tiles, 3–6 types, 1–4 layers (or an explicit covers DAG), 2–7 slots.
// About one level in ten has a type count that is not a multiple of 3;
// those, and single-layer levels, stay at 12 tiles or fewer so the oracle
// (which has no precheck) can enumerate them.
func smallLevel(rng *rand.Rand) []byte {
	broken := rng.IntN(10) == 0
	triples := 1 + rng.IntN(8)
	if broken {
		triples = 1 + rng.IntN(4)
	}
	types := 3 + rng.IntN(4)
	var kinds []int
	for range triples {
		v := 1 + rng.IntN(types)
		kinds = append(kinds, v, v, v)
	}
	if broken {
		k := rng.IntN(len(kinds))
		kinds[k] = kinds[k]%types + 1 // another type: two counts break
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	slots := []int{2, 3, 4, 4, 5, 5, 6, 7, 7}[rng.IntN(9)]
	if rng.IntN(5) == 0 {
		return coversLevel(rng, kinds, slots)
	}
	return geometryLevel(rng, kinds, slots)
}

func geometryLevel(rng *rand.Rand, kinds []int, slots int) []byte {
	layers := 2 + rng.IntN(3)
	if len(kinds) <= 12 && rng.IntN(4) == 0 {
		layers = 1
	}
	used := map[[3]int]bool{}
	var tiles []map[string]any
	for _, v := range kinds {
		var c [3]int
		for {
			c = [3]int{1 + rng.IntN(layers), 4 * rng.IntN(5), 4 * rng.IntN(5)}
			if !used[c] {
				break
			}
		}
		used[c] = true
		tiles = append(tiles, map[string]any{
			"id": fmt.Sprintf("%d-%d-%d", c[0], c[1], c[2]), "type": v, "x": c[1], "y": c[2], "layer": c[0],
		})
	}
	return mustJSON(map[string]any{"kind": "sheep", "slots": slots, "tile_size": 8, "tiles": tiles})
}

// coversLevel: tile k may cover any tile after it in a random order, so
// the graph is acyclic; ids are shuffled so id order is not that order.
func coversLevel(rng *rand.Rand, kinds []int, slots int) []byte {
	n := len(kinds)
	names := rng.Perm(n)
	tiles := make([]map[string]any, n)
	for k := range n {
		covers := []string{}
		for j := k + 1; j < n; j++ {
			if rng.IntN(4) == 0 {
				covers = append(covers, fmt.Sprintf("t%d", names[j]))
			}
		}
		tiles[k] = map[string]any{"id": fmt.Sprintf("t%d", names[k]), "type": kinds[k], "covers": covers}
	}
	return mustJSON(map[string]any{"kind": "sheep", "slots": slots, "tiles": tiles})
}

// tinySchedule makes even small levels go through many passes: limited
// plain, projection proofs, restarts with shuffled orders, then the
// unlimited last pass.
var tinySchedule = schedule{first: 40, restart: 15, restarts: 25, proj: projectionPlan{extra: 2, subsets: 12, perNodes: 30, total: 300}}

// hardLevel is a realistic level with a tray of 4: far too hard to win or
// refute within a small budget, so solves of it end unknown.
func hardLevel(t testing.TB) *Level {
	t.Helper()
	g, err := Generate(rand.New(rand.NewPCG(1, 99)), GenerateOpts{Slots: 4})
	if err != nil {
		t.Fatal(err)
	}
	return g.Level
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func mustParse(t testing.TB, data []byte) *Level {
	t.Helper()
	l, err := Parse(data)
	if err != nil {
		t.Fatalf("parse %s: %v", data, err)
	}
	return l
}

// solveVerified solves and checks the result with Verify.
func solveVerified(t testing.TB, l *Level, opts solver.Options) solver.Result {
	t.Helper()
	return solveVerifiedWith(t, l, opts, scheduleFor(l))
}

// solveVerifiedWith is solveVerified with a given pass schedule.
func solveVerifiedWith(t testing.TB, l *Level, opts solver.Options, sched schedule) solver.Result {
	t.Helper()
	res, err := solveWith(context.Background(), l, opts, sched)
	if err != nil {
		t.Fatalf("solve %s: %v", l.Canonical(), err)
	}
	if err := Verify(l, res); err != nil {
		t.Fatalf("verify %s: %v", l.Canonical(), err)
	}
	return res
}

// legalClicks are the clicks of b's state that do not lose at once.
func legalClicks(b *board) []int32 {
	var legal []int32
	for _, c := range b.clk {
		if b.legal(c) {
			legal = append(legal, c)
		}
	}
	return legal
}

// tightLevel is a geometry level of triples+rng.IntN(spread) triples of
// 3–6 types and 3..3+slotSpread-1 slots: many tiles for a tight tray, so
// dead states lie deep, where endgame tables and long exact passes work.
func tightLevel(t testing.TB, rng *rand.Rand, triples, spread, slotSpread int) *Level {
	t.Helper()
	var kinds []int
	types := 3 + rng.IntN(4)
	for range triples + rng.IntN(spread) {
		v := 1 + rng.IntN(types)
		kinds = append(kinds, v, v, v)
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	return mustParse(t, geometryLevel(rng, kinds, 3+rng.IntN(slotSpread)))
}

// solveAgainstOracle solves level k with sched, plans replayed
// (solveVerifiedWith), and fails unless the verdict is the oracle's.
func solveAgainstOracle(t testing.TB, k int, l *Level, sched schedule) solver.Result {
	t.Helper()
	res := solveVerifiedWith(t, l, solver.Options{}, sched)
	solvable := newOracle(l).solve() != nil
	if (res.Verdict == solver.Solved) != solvable || res.Verdict == solver.Unknown {
		t.Fatalf("level %d %s: %s (%s), oracle solvable %v", k, l.Canonical(), res.Verdict, res.Proof, solvable)
	}
	return res
}

// solvedSearch runs a search of l under sched without a budget to its end
// and returns it, for tests that look at its signals and state.
func solvedSearch(l *Level, sched schedule) *search {
	m, _ := solver.NewMeter(context.Background(), solver.Options{})
	s := newSearch(l, m, sched)
	s.solve()
	return s
}
