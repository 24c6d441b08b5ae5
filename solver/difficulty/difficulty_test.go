package difficulty

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/puzzled/puzzled/solver"
)

func solved(nodes int64) solver.Result {
	return solver.Result{Verdict: solver.Solved, Stats: solver.Stats{Nodes: nodes}}
}

func TestMeasureUnwinnableGivesZeroForEveryPlayer(t *testing.T) {
	t.Parallel()
	never := func([]int) Status { return Playing } // ends Lost at depth
	f, err := Measure(context.Background(), newToy(3, 4, never), solver.Result{Verdict: solver.Unsolvable}, Options{Playouts: 200})
	if err != nil {
		t.Fatal(err)
	}
	if f.Random.Wins != 0 || f.Greedy.Wins != 0 {
		t.Fatalf("wins random %d greedy %d, want 0", f.Random.Wins, f.Greedy.Wins)
	}
	if f.First == nil || f.First.Winning != 0 || f.First.Moves != 3 {
		t.Fatalf("first moves %+v, want 0 of 3", f.First)
	}
	if f.Shortest != nil || f.Score != nil || !f.ExactComplete {
		t.Fatalf("shortest %v score %v complete %v: want none, none, true", f.Shortest, f.Score, f.ExactComplete)
	}
}

func TestMeasureEveryMoveWinsGivesOne(t *testing.T) {
	t.Parallel()
	always := func(seq []int) Status {
		if len(seq) == 3 {
			return Won
		}
		return Playing
	}
	f, err := Measure(context.Background(), newToy(4, 3, always), solved(10), Options{Playouts: 300})
	if err != nil {
		t.Fatal(err)
	}
	if f.Random.Rate != 1 || f.Greedy.Rate != 1 || f.First.Share != 1 {
		t.Fatalf("random %v greedy %v first %v, want 1, 1, 1", f.Random.Rate, f.Greedy.Rate, f.First.Share)
	}
	if *f.Shortest != 3 || *f.Median != 3 || *f.Score != 1 {
		t.Fatalf("shortest %d median %v score %d, want 3, 3, 1", *f.Shortest, *f.Median, *f.Score)
	}
	if f.Random.High != 1 || f.Random.Low >= 1 || f.Random.Low < 0.98 {
		t.Fatalf("interval [%v, %v] for 300/300", f.Random.Low, f.Random.High)
	}
}

func TestMeasureIsDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	// Wins when the moves sum to 2 within 4 moves, loses past it.
	rule := sumsToTwo
	game := newToy(3, 4, rule)
	run := func(seed uint64, workers int) Figures {
		f, err := Measure(context.Background(), game, solved(1), Options{Playouts: 500, Seed: seed, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, c := run(7, 1), run(8, 2)
	for _, workers := range []int{2, 4} {
		if b := run(7, workers); !reflect.DeepEqual(a, b) {
			t.Fatalf("same seed, 1 vs %d workers:\n%+v\n%+v", workers, a, b)
		}
	}
	if a.Random.Wins == c.Random.Wins && a.Greedy.Wins == c.Greedy.Wins {
		t.Fatalf("seeds 7 and 8 gave the same wins (%d, %d): the seed is not used", a.Random.Wins, a.Greedy.Wins)
	}
	if a.Random.Wins == 0 || a.Random.Wins == 500 {
		t.Fatalf("random wins %d: the test level should be neither trivial nor impossible", a.Random.Wins)
	}
}

func TestGreedyFollowsItsHeuristic(t *testing.T) {
	t.Parallel()
	g := newToy(5, 3, zerosWin(3))
	var pref NewGame = func() Game {
		x := g().(*toy)
		x.greedy = func(_ []int, m int) int { return -m } // prefers 0
		return x
	}
	f, err := Measure(context.Background(), pref, solved(1), Options{Playouts: 400})
	if err != nil {
		t.Fatal(err)
	}
	if f.Greedy.Rate != 1 {
		t.Fatalf("greedy rate %v, want 1: it always plays the winning 0", f.Greedy.Rate)
	}
	// Random: (1/5)^3 = 0.008; 400 games give a handful of wins at most.
	if f.Random.Wins > 12 {
		t.Fatalf("random wins %d of 400, expected about 3", f.Random.Wins)
	}
}

func TestExactSharesAndLines(t *testing.T) {
	t.Parallel()
	// Width 3, wins once the moves sum to exactly 2: the winning lines are
	// 2 (length 1), 1+1 (2), 0+2, 1+0+1, … up to depth 4.
	rule := sumsToTwo
	f := Figures{}
	if err := measureExact(context.Background(), newToy(3, 4, rule)(), Options{}.withDefaults(), &f); err != nil {
		t.Fatal(err)
	}
	// Every first move (0, 1, 2) still wins.
	if f.First.Winning != 3 || f.First.Moves != 3 {
		t.Fatalf("first %+v, want 3 of 3", f.First)
	}
	// Lines by brute force: sequences over {0,1,2} of length ≤ 4 whose
	// running sum first reaches exactly 2 at the last move.
	want := map[int]float64{}
	var walk func(seq []int)
	walk = func(seq []int) {
		switch rule(seq) {
		case Won:
			want[len(seq)]++
			return
		case Lost:
			return
		}
		if len(seq) == 4 {
			return
		}
		for m := 0; m < 3; m++ {
			walk(append(seq, m))
		}
	}
	walk(nil)
	if *f.Shortest != 1 {
		t.Fatalf("shortest %d, want 1", *f.Shortest)
	}
	total, ranks := 0.0, []int{}
	for l := 0; l <= 4; l++ {
		total += want[l]
		for i := 0; i < int(want[l]); i++ {
			ranks = append(ranks, l)
		}
	}
	med := float64(ranks[(len(ranks)-1)/2]+ranks[len(ranks)/2]) / 2
	if *f.Median != med {
		t.Fatalf("median %v, brute force %v over %v lines", *f.Median, med, total)
	}
}

func TestExactOverBudgetLeavesFiguresOut(t *testing.T) {
	t.Parallel()
	never := func([]int) Status { return Playing }
	f := Figures{}
	if err := measureExact(context.Background(), newToy(4, 8, never)(), Options{ExactNodes: 100}.withDefaults(), &f); err != nil {
		t.Fatal(err)
	}
	if f.First != nil || f.Shortest != nil || f.ExactComplete {
		t.Fatalf("over budget but got first %v shortest %v complete %v", f.First, f.Shortest, f.ExactComplete)
	}
}

func TestMeasureHonoursCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, newToy(3, 4, zerosWin(4)), solved(1), Options{}); err == nil {
		t.Fatal("canceled context: want an error")
	}
}

func TestWilson(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		wins, n int
		lo, hi  float64
	}{
		{0, 1000, 0, 0.003827},
		{1000, 1000, 0.996173, 1},
		{500, 1000, 0.469070, 0.530930},
		{1, 10, 0.017876, 0.404150},
	} {
		lo, hi := wilson(tc.wins, tc.n)
		if math.Abs(lo-tc.lo) > 1e-5 || math.Abs(hi-tc.hi) > 1e-5 {
			t.Errorf("wilson(%d, %d) = [%.6f, %.6f], want [%.6f, %.6f]", tc.wins, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestScoreIsMonotone(t *testing.T) {
	t.Parallel()
	prev := 0
	for i, p := range []float64{1, 0.5, 0.2, 0.05, 0.01, 0.002, 0} {
		f := Figures{
			Random: &Rate{Rate: p},
			Greedy: &Rate{Rate: math.Min(1, 2*p)},
			First:  &Share{Moves: 1, Share: p}, // fewer winning first moves as well
		}
		s := *PlayoutScore(f)
		if s < prev || s < 1 || s > 10 {
			t.Fatalf("step %d (p=%v): score %d after %d", i, p, s, prev)
		}
		prev = s
	}
	if prev != 10 {
		t.Fatalf("hardest score %d, want 10", prev)
	}
}

// sumsToTwo is a toy game's rule: won when the moves sum to exactly 2,
// lost past it, still playing below.
func sumsToTwo(seq []int) Status {
	s := 0
	for _, m := range seq {
		s += m
	}
	switch {
	case s == 2:
		return Won
	case s > 2:
		return Lost
	}
	return Playing
}
