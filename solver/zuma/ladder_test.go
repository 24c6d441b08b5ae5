package zuma

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// pairsBoard is a board of pairs of colors (no two neighbouring pairs
// alike) and one ball per pair, shuffled: solvable by completing each
// pair in turn.
func pairsBoard(rng *rand.Rand, pairs, colors int) (board, balls string) {
	var b, h []byte
	for range pairs {
		c := byte('A' + rng.IntN(colors))
		for len(b) > 0 && b[len(b)-1] == c {
			c = byte('A' + rng.IntN(colors))
		}
		b = append(b, c, c)
		h = append(h, c)
	}
	rng.Shuffle(len(h), func(i, j int) { h[i], h[j] = h[j], h[i] })
	return string(b), string(h)
}

// TestLadderRungsAreMonotone plays every rung on random hand levels and
// shuffled ammo pair boards: a stronger rung may win less than the one
// below it only within their intervals.
func TestLadderRungsAreMonotone(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 4))
	rated := 0
	for i := range 24 {
		var lvl *Level
		if i%2 == 0 {
			lvl = level(t, randomBoard(rng, 10+rng.IntN(8), 3+rng.IntN(2)), randomBalls(rng, 4+rng.IntN(3), 4), "", ModeHand)
		} else {
			board, ammo := pairsBoard(rng, 3+rng.IntN(5), 4)
			lvl = level(t, board, "", ammo, ModeAmmo)
		}
		res := solve(t, lvl, solver.Options{})
		if res.Verdict != solver.Solved {
			continue
		}
		f, err := kind{}.Rate(context.Background(), lvl, res, difficulty.Options{Playouts: 300, FullLadder: true,
			RungGames: 12, Widths: []int{2, 4, 8, 16, 32, 64}})
		if err != nil {
			t.Fatal(err)
		}
		rated++
		for k := 1; k < len(f.Ladder.Rungs); k++ {
			lo, hi := f.Ladder.Rungs[k-1], f.Ladder.Rungs[k]
			if hi.High < lo.Low {
				t.Errorf("%s: rung %d wins %d/%d, rung %d below it %d/%d", lvl.Canonical(), k, hi.Wins, hi.Games, k-1, lo.Wins, lo.Games)
			}
		}
	}
	if rated < 10 {
		t.Fatalf("%d levels rated, want at least 10", rated)
	}
}

// TestScoreRisesWithMorePairsInAmmo shoots pair boards with their balls
// in a shuffled order, one pair more at each step: the median score must
// not fall, and the last step must score above the first.
func TestScoreRisesWithMorePairsInAmmo(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 5))
	prev, first := 0.0, 0.0
	for i, pairs := range []int{2, 4, 6, 8} {
		var scores []float64
		for range 6 {
			board, ammo := pairsBoard(rng, pairs, 4)
			lvl := level(t, board, "", ammo, ModeAmmo)
			res, f := rate(t, lvl, difficulty.Options{Playouts: 300})
			if res.Verdict != solver.Solved || f.Score == nil {
				t.Fatalf("%s: %s, figures %+v", lvl.Canonical(), res.Verdict, f)
			}
			scores = append(scores, float64(*f.Score))
		}
		slices.Sort(scores)
		med := (scores[2] + scores[3]) / 2
		t.Logf("%d pairs: scores %v", pairs, scores)
		if med < prev {
			t.Fatalf("%d pairs: median score %v below %v with fewer pairs", pairs, med, prev)
		}
		if i == 0 {
			first = med
		}
		prev = med
	}
	if prev <= first {
		t.Fatalf("median score went from %v to %v: the family did not get harder", first, prev)
	}
}
