package columns

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// TestLadderRungsAreMonotone plays every rung on generated score-goal
// levels: a stronger rung may win less than the one below it only within
// their intervals.
func TestLadderRungsAreMonotone(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(33, 6))
	k := New().(*kind)
	rated := 0
	for i := range 12 {
		l, err := Generate(rng, GenConfig{Width: 6, Height: 12, Rule: RuleLines, Colors: 4, Fill: 0.3,
			Pieces: 6 + i%3, Goal: GoalScore, Score: int64(6 + 3*(i%4))})
		if err != nil {
			t.Fatal(err)
		}
		res, err := k.Solve(context.Background(), l, solver.Options{Budget: solver.Budget{MaxMS: 5000}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != solver.Solved {
			continue
		}
		f, err := k.Rate(context.Background(), l, res, difficulty.Options{Playouts: 300, FullLadder: true,
			RungGames: 12, Widths: []int{2, 4, 8, 16, 32}})
		if err != nil {
			t.Fatal(err)
		}
		rated++
		for r := 1; r < len(f.Ladder.Rungs); r++ {
			lo, hi := f.Ladder.Rungs[r-1], f.Ladder.Rungs[r]
			if hi.High < lo.Low {
				t.Errorf("level %d: rung %d wins %d/%d, rung %d below it %d/%d", i, r, hi.Wins, hi.Games, r-1, lo.Wins, lo.Games)
			}
		}
	}
	if rated < 8 {
		t.Fatalf("%d levels rated, want at least 8", rated)
	}
}
