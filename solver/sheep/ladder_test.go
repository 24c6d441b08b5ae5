package sheep

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// withSlots is l with a tray of slots places.
func withSlots(tb testing.TB, l *Level, slots int) *Level {
	tb.Helper()
	raw := make([]rawTile, len(l.tiles))
	for i, t := range l.Tiles() {
		raw[i] = rawTile{Tile: t}
	}
	out, err := build(slots, max(l.tileSize, 1), l.geometry, raw)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// solveAndRate solves l and rates it when solved; ok is false otherwise.
func solveAndRate(tb testing.TB, l *Level, opts difficulty.Options) (difficulty.Figures, bool) {
	tb.Helper()
	res, err := Solve(context.Background(), l, solver.Options{Budget: solver.Budget{MaxMS: 20_000}})
	if err != nil {
		tb.Fatal(err)
	}
	if res.Verdict != solver.Solved {
		return difficulty.Figures{}, false
	}
	f, err := kind{}.Rate(context.Background(), l, res, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return f, true
}

// TestLadderRungsAreMonotone plays every rung on generated levels: a
// stronger rung may win less than the one below it only within their
// intervals.
func TestLadderRungsAreMonotone(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 1))
	rated := 0
	for _, o := range []GenerateOpts{
		{Tiles: 45, Layers: 5, Types: 5, Slots: 7, Solvable: true},
		{Tiles: 45, Layers: 5, Types: 5, Slots: 5, Solvable: true},
		{Tiles: 90, Layers: 8, Types: 8, Slots: 6, Solvable: true},
		{Tiles: 120, Layers: 12, Types: 10, Slots: 7, Solvable: true, Mounds: 1, Spread: 12},
	} {
		for range 3 {
			g, err := Generate(rng, o)
			if err != nil {
				t.Fatal(err)
			}
			f, ok := solveAndRate(t, g.Level, difficulty.Options{Playouts: 200, FullLadder: true, RungGames: 12,
				Widths: []int{2, 4, 8, 16, 32}})
			if !ok {
				continue
			}
			rated++
			checkMonotone(t, f.Ladder)
		}
	}
	if rated < 8 {
		t.Fatalf("%d levels rated, want at least 8", rated)
	}
}

// checkMonotone fails when a rung wins less than the one below it by
// more than their 95% intervals allow (the intervals do not overlap).
func checkMonotone(t *testing.T, l *difficulty.Ladder) {
	t.Helper()
	for k := 1; k < len(l.Rungs); k++ {
		lo, hi := l.Rungs[k-1], l.Rungs[k]
		if hi.High < lo.Low {
			t.Errorf("rung %d (%s %d) wins %d/%d, rung %d below it %d/%d: %+v", k, hi.Player, hi.Width, hi.Wins, hi.Games, k-1, lo.Wins, lo.Games, l.Rungs)
		}
	}
}

func TestLadderIsTheSameForEveryWorkerCount(t *testing.T) {
	t.Parallel()
	g, err := Generate(rand.New(rand.NewPCG(33, 2)), GenerateOpts{Tiles: 90, Layers: 8, Types: 8, Slots: 5, Solvable: true})
	if err != nil {
		t.Fatal(err)
	}
	opts := difficulty.Options{Playouts: 200, Seed: 9, FullLadder: true, Widths: []int{2, 8, 32}}
	opts.Workers = 1
	a, ok := solveAndRate(t, g.Level, opts)
	if !ok {
		t.Fatal("generated level not solved")
	}
	opts.Workers = 3
	b, _ := solveAndRate(t, g.Level, opts)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, 1 and 3 workers:\n%+v\n%+v", a.Ladder, b.Ladder)
	}
}

// TestScoreRisesWithFewerSlotsAndMoreTypes deals one real-style layout
// of 150 tiles and makes the deals harder step by step: fewer slots, then
// more types. The median score of each step must not fall below the
// step before, and the last step must score above the first.
func TestScoreRisesWithFewerSlotsAndMoreTypes(t *testing.T) {
	t.Parallel()
	g, err := Generate(rand.New(rand.NewPCG(33, 3)), GenerateOpts{Tiles: 150, Layers: 16, Types: 6, Mounds: 1, Spread: 16})
	if err != nil {
		t.Fatal(err)
	}
	const deals = 3
	family := func(types, slots int) []*Level {
		var out []*Level
		for k := range deals {
			d, err := Deal(rand.New(rand.NewPCG(33, uint64(k))), g.Level, types)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, withSlots(t, d, slots))
		}
		return out
	}
	for _, steps := range [][][2]int{
		{{10, 7}, {10, 6}, {10, 5}}, // fewer slots
		{{6, 7}, {10, 7}, {14, 7}},  // more types
	} {
		prev, first := 0.0, 0.0
		for i, st := range steps {
			var scores []float64
			for _, d := range family(st[0], st[1]) {
				if f, ok := solveAndRate(t, d, difficulty.Options{Playouts: 200}); ok {
					scores = append(scores, float64(*f.Score))
				}
			}
			if len(scores) < deals/2 {
				t.Fatalf("types %d slots %d: %d of %d deals solved", st[0], st[1], len(scores), deals)
			}
			slices.Sort(scores)
			med := (scores[(len(scores)-1)/2] + scores[len(scores)/2]) / 2
			t.Logf("types %d slots %d: scores %v", st[0], st[1], scores)
			if med < prev {
				t.Fatalf("types %d slots %d: median score %v below %v of the step before", st[0], st[1], med, prev)
			}
			if i == 0 {
				first = med
			}
			prev = med
		}
		if prev <= first {
			t.Fatalf("steps %v: median score went from %v to %v, the family did not get harder", steps, first, prev)
		}
	}
}
