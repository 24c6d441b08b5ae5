package zuma

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

func rate(t *testing.T, lvl *Level, opts difficulty.Options) (solver.Result, difficulty.Figures) {
	t.Helper()
	res := solve(t, lvl, solver.Options{})
	f, err := kind{}.Rate(context.Background(), lvl, res, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, f
}

func TestRateUnsolvableHandNeverWins(t *testing.T) {
	t.Parallel()
	res, f := rate(t, level(t, "WRRBBW", "RB", "", ModeHand), difficulty.Options{Playouts: 300})
	if res.Verdict != solver.Unsolvable {
		t.Fatalf("verdict %s", res.Verdict)
	}
	if f.Random.Wins != 0 || f.Greedy.Wins != 0 || f.First.Winning != 0 || f.Score != nil {
		t.Fatalf("random %d greedy %d first %+v score %v: want no win", f.Random.Wins, f.Greedy.Wins, f.First, f.Score)
	}
}

func TestRateEveryMoveWins(t *testing.T) {
	t.Parallel()
	// Hand mode: R anywhere next to RR is one move and clears the board.
	_, f := rate(t, level(t, "RR", "R", "", ModeHand), difficulty.Options{Playouts: 200})
	if f.Random.Rate != 1 || f.Greedy.Rate != 1 || f.First.Share != 1 || *f.Score != 1 || *f.Shortest != 1 {
		t.Fatalf("hand: %+v", f)
	}
	// Ammo mode: the optimum makes nothing vanish, so stopping at once wins.
	res, f := rate(t, level(t, "RG", "", "B", ModeAmmo), difficulty.Options{Playouts: 200})
	if *res.Value != 0 || f.Random.Rate != 1 || f.Greedy.Rate != 1 || *f.Shortest != 0 {
		t.Fatalf("ammo: value %d, %+v", *res.Value, f)
	}
}

func TestRateAmmoWinsOnlyAtTheOptimum(t *testing.T) {
	t.Parallel()
	// BBRRGG shot with B, R, G: each must go next to its pair to clear all.
	res, f := rate(t, level(t, "BBRRGG", "", "BRG", ModeAmmo), difficulty.Options{Playouts: 1000})
	if *res.Value != 9 {
		t.Fatalf("optimum %d, want 9", *res.Value)
	}
	if f.Greedy.Rate != 1 || f.Random.Rate <= 0 || f.Random.Rate >= 0.5 {
		t.Fatalf("greedy %v random %v: greedy clears, random rarely", f.Greedy.Rate, f.Random.Rate)
	}
}

func TestRateSameSeedSameFigures(t *testing.T) {
	t.Parallel()
	lvl := level(t, "WWRRBBWW", "WRBRW", "", ModeHand)
	_, a := rate(t, lvl, difficulty.Options{Playouts: 500, Seed: 11, Workers: 4})
	_, b := rate(t, lvl, difficulty.Options{Playouts: 500, Seed: 11, Workers: 1})
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different figures:\n%+v\n%+v", a, b)
	}
}

func TestRateUnlimitedIsNotRated(t *testing.T) {
	t.Parallel()
	lvl := level(t, "RRWWRRBBRR", "", "", ModeUnlimited)
	_, err := kind{}.Rate(context.Background(), lvl, solve(t, lvl, solver.Options{}), difficulty.Options{})
	if !errors.Is(err, difficulty.ErrNotRated) {
		t.Fatalf("err %v, want ErrNotRated", err)
	}
}

// TestRateMorePairsIsHarder grows the board one pair at a time, each
// needing its one ball from an exact hand: the random player must win
// less at each step and the score must never fall. (The greedy player and
// every beam win all of them, so the score stays at the bottom of the
// ladder: completing one pair after another needs no planning.
// TestScoreRisesWithMorePairsInAmmo has a family the score climbs on.)
//
// The family the issue suggests, fewer spare balls in the hand, is not
// monotone for the random player: a spare ball is also a chance to spoil
// the board (RRGGBBYY: random wins 0.1% with hand RRGGBBYY, 2.7% with
// RGBY), so taking spares away makes it easier for that player.
func TestRateMorePairsIsHarder(t *testing.T) {
	t.Parallel()
	prev, prevRandom := 0, 2.0
	for _, tc := range []struct{ board, hand string }{
		{"RR", "R"}, {"RRGG", "RG"}, {"RRGGBB", "RGB"}, {"RRGGBBYY", "RGBY"}, {"RRGGBBYYWW", "RGBYW"},
	} {
		res, f := rate(t, level(t, tc.board, tc.hand, "", ModeHand), difficulty.Options{Playouts: 1000})
		if res.Verdict != solver.Solved || f.Score == nil || f.First == nil {
			t.Fatalf("%s + %s: %s, figures %+v", tc.board, tc.hand, res.Verdict, f)
		}
		s := *f.Score
		t.Logf("%-10s + %-5s score %d random %.3f greedy %.3f first %d/%d position %.2f", tc.board, tc.hand, s, f.Random.Rate, f.Greedy.Rate, f.First.Winning, f.First.Moves, f.Ladder.Position)
		if s < prev {
			t.Fatalf("%s: score %d below %d of the smaller board", tc.board, s, prev)
		}
		if f.Random.Rate >= prevRandom && f.Random.Rate < 1 {
			t.Fatalf("%s: random rate %v, not below %v of the smaller board", tc.board, f.Random.Rate, prevRandom)
		}
		prev, prevRandom = s, f.Random.Rate
	}
}

// TestRateAgreesWithTheSolver: on random hand levels no playout wins a
// level the solver proved unsolvable, the exact search finds a winning
// first move exactly when it is solved, and the shortest win it finds is
// the solver's optimum.
func TestRateAgreesWithTheSolver(t *testing.T) {
	t.Parallel()
	verdicts := map[solver.Verdict]int{}
	rng := rand.New(rand.NewPCG(18, 2))
	for range 150 {
		var b []byte
		for n := 3 + rng.IntN(6); len(b) < n; {
			c := byte('A' + rng.IntN(3))
			if k := len(b); k >= 2 && b[k-1] == c && b[k-2] == c {
				continue
			}
			b = append(b, c)
		}
		hand := make([]byte, 1+rng.IntN(4))
		for i := range hand {
			hand[i] = byte('A' + rng.IntN(3))
		}
		lvl := level(t, string(b), string(hand), "", ModeHand)
		res, f := rate(t, lvl, difficulty.Options{Playouts: 100})
		solved := res.Verdict == solver.Solved
		verdicts[res.Verdict]++
		if !solved && (f.Random.Wins > 0 || f.Greedy.Wins > 0) {
			t.Fatalf("%s: unsolvable but playouts won", lvl.Canonical())
		}
		if f.First == nil || (f.First.Winning > 0) != solved {
			t.Fatalf("%s: verdict %s, first moves %+v", lvl.Canonical(), res.Verdict, f.First)
		}
		if solved && (f.Shortest == nil || int64(*f.Shortest) != *res.Value) {
			t.Fatalf("%s: optimum %d, shortest line %v", lvl.Canonical(), *res.Value, f.Shortest)
		}
	}
	if verdicts[solver.Solved] == 0 || verdicts[solver.Unsolvable] == 0 {
		t.Fatalf("verdicts %v: the levels must include both", verdicts)
	}
}
