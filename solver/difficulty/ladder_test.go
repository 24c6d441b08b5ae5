package difficulty

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

func TestPosition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		rates []float64
		want  float64
	}{
		{"random wins", []float64{0.7, 1}, 0},
		{"random at one half", []float64{0.5}, 0},
		{"first beam", []float64{0.1, 0.9}, 0.5},
		{"crossing between rungs 1 and 2", []float64{0, 0.3, 0.7}, 1.5},
		{"a rung at exactly one half", []float64{0, 0, 0.5, 1}, 2},
		{"noisy, the first crossing counts", []float64{0, 0.6, 0.2, 1}, 0.5 / 0.6},
		{"no rung wins half: the exact player does", []float64{0, 0.2}, 1 + 0.3/0.8},
		{"no rung wins at all", []float64{0, 0, 0}, 2.5},
	} {
		rungs := make([]Rung, len(tc.rates))
		for i, p := range tc.rates {
			rungs[i].Rate.Rate = p
		}
		if got := position(rungs); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: position %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestWiderBeamsWinTheNeedle: on the needle (width 2, depth 4) a beam
// wins exactly when it can keep all 2^3 positions of the third move.
func TestWiderBeamsWinTheNeedle(t *testing.T) {
	t.Parallel()
	f, err := Measure(context.Background(), newToy(2, 4, needle(4)), solved(1),
		Options{Playouts: 100, Widths: []int{1, 2, 4, 8, 16}, FullLadder: true, RungGames: 6})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range f.Ladder.Rungs[2:] {
		got = append(got, r.Wins)
	}
	// Narrow rungs stop after earlyGames losses.
	if want := []int{0, 0, 0, 6, 6}; !reflect.DeepEqual(got, want) {
		t.Fatalf("wins by width 1..16: %v, want %v", got, want)
	}
	if f.Ladder.Rungs[2].Games != earlyGames || f.Ladder.Rungs[5].Games != 6 {
		t.Fatalf("games %d and %d, want %d (early stop) and 6", f.Ladder.Rungs[2].Games, f.Ladder.Rungs[5].Games, earlyGames)
	}
	// The random and greedy players win 1 in 16 (the toy's greedy has
	// no preference); the beam of 8 is rung 5: position 4.5.
	if p := f.Ladder.Position; p != 4.5 {
		t.Fatalf("position %v, want 4 + (0.5 − 0)/(1 − 0) = 4.5", p)
	}
}

func TestLadderStopsAtTheFirstRungThatWinsHalf(t *testing.T) {
	t.Parallel()
	f, err := Measure(context.Background(), newToy(2, 4, needle(4)), solved(1),
		Options{Playouts: 100, Widths: []int{1, 2, 4, 8, 16, 32}})
	if err != nil {
		t.Fatal(err)
	}
	l := f.Ladder
	if len(l.Rungs) != 6 || l.Rungs[5].Width != 8 || !l.Complete || l.Top != 7 {
		t.Fatalf("rungs %+v top %d complete %v: want random, greedy and widths 1..8, top 7, complete", l.Rungs, l.Top, l.Complete)
	}
}

func TestLadderOverBudgetIsIncomplete(t *testing.T) {
	t.Parallel()
	// Width 3, depth 6: the needle needs a beam of 243; the budget
	// does not allow the beam of 64 after the one of 16.
	f, err := Measure(context.Background(), newToy(3, 6, needle(6)), solved(1),
		Options{Playouts: 10, Widths: []int{1, 4, 16, 64, 256}, LadderNodes: 3000})
	if err != nil {
		t.Fatal(err)
	}
	l := f.Ladder
	if l.Complete || len(l.Rungs) != 5 || l.Nodes > 3000 {
		t.Fatalf("rungs %+v nodes %d complete %v: want random, greedy, 1, 4, 16 within 3000 nodes, incomplete", l.Rungs, l.Nodes, l.Complete)
	}
	// A lower bound: the exact player one rung above the last.
	if l.Position != 4.5 {
		t.Fatalf("position %v, want 4.5", l.Position)
	}
}

func TestLadderIsTheSameForEveryWorkerCount(t *testing.T) {
	t.Parallel()
	// Every position is worth the same but for the noise, so each game
	// keeps other positions, and a beam keeps the needle (width 3,
	// depth 5) with a chance that grows with its width.
	var flat NewGame = func() Game {
		g := newToy(3, 5, needle(5))().(*toy)
		g.eval = func([]int) int64 { return 0 }
		return g
	}
	run := func(seed uint64, workers int) *Ladder {
		f, err := Measure(context.Background(), flat, solved(1),
			Options{Playouts: 50, Seed: seed, Workers: workers, Widths: []int{3, 9, 27, 81}, FullLadder: true, Noise: 1000, RungGames: 24})
		if err != nil {
			t.Fatal(err)
		}
		return f.Ladder
	}
	a := run(5, 1)
	for _, w := range []int{2, 4} {
		if b := run(5, w); !reflect.DeepEqual(a, b) {
			t.Fatalf("same seed, 1 vs %d workers:\n%+v\n%+v", w, a, b)
		}
	}
	mid := 0
	for _, r := range a.Rungs[2:] {
		if r.Wins > 0 && r.Wins < r.Games {
			mid++
		}
	}
	if mid == 0 {
		t.Fatalf("rungs %+v: no rung between always and never, the noise does nothing", a.Rungs)
	}
	if c := run(6, 1); reflect.DeepEqual(a, c) {
		t.Fatalf("seeds 5 and 6 gave the same ladder: the seed is not used")
	}
}

func TestLadderSkipsUnsolvableLevels(t *testing.T) {
	t.Parallel()
	never := func([]int) Status { return Playing }
	f, err := Measure(context.Background(), newToy(3, 4, never), solver.Result{Verdict: solver.Unsolvable}, Options{Playouts: 50})
	if err != nil {
		t.Fatal(err)
	}
	if f.Ladder != nil {
		t.Fatalf("ladder %+v on an unsolvable level", f.Ladder)
	}
}

func TestLadderScore(t *testing.T) {
	t.Parallel()
	const top = 9 // random, greedy, beams 2..256
	for _, tc := range []struct {
		x    float64
		want int
	}{
		{0, 1}, {0.5, 1}, {1, 1}, {1.4, 1}, {2, 2}, {5, 5}, {5.4, 6}, {9, 9}, {9.5, 10}, {12, 10},
	} {
		if got := LadderScore(tc.x, top); got != tc.want {
			t.Errorf("LadderScore(%v, %d) = %d, want %d", tc.x, top, got, tc.want)
		}
	}
	prev := 0
	for x := 0.0; x <= top+0.5; x += 0.01 {
		s := LadderScore(x, top)
		if s < prev {
			t.Fatalf("LadderScore(%v) = %d after %d", x, s, prev)
		}
		prev = s
	}
}

// TestLadderOutOfTimeIsIncomplete: when the deadline passes during the
// climb, the rungs played stand and the ladder says it is incomplete; a
// cancel is an error.
func TestLadderOutOfTimeIsIncomplete(t *testing.T) {
	t.Parallel()
	random, greedy := newRate(0, 10), newRate(0, 10)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	l, err := climb(ctx, newToy(2, 4, needle(4)), random, greedy, Options{Widths: []int{2, 4, 8}}.withDefaults())
	if err != nil || l.Complete || len(l.Rungs) != 2 || l.Position != 1.5 {
		t.Fatalf("ladder %+v, err %v: want random and greedy only, incomplete, position 1.5", l, err)
	}
	canceled, stop := context.WithCancel(context.Background())
	stop()
	if _, err := climb(canceled, newToy(2, 4, needle(4)), random, greedy, Options{Widths: []int{2}}.withDefaults()); err == nil {
		t.Fatal("canceled: want an error")
	}
}
