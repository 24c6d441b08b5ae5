package sheep

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/puzzled/puzzled/solver"
)

func TestExplore(t *testing.T) {
	if os.Getenv("SHEEP_EXPLORE") == "" {
		t.Skip()
	}
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		g, err := Generate(rng, GenerateOpts{Solvable: seed%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		l := g.Level
		start := time.Now()
		res, err := Solve(context.Background(), l, solver.Options{Budget: solver.Budget{MaxMS: 3000}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d solv=%v tiles=%d clk=%d verdict=%s proof=%s cleared=%v nodes=%d %v", seed, seed%2 == 0, l.NumTiles(), len(l.Clickable()), res.Verdict, res.Proof, res.Details["cleared"], res.Stats.Nodes, time.Since(start))
	}
}
