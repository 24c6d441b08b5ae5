package kinds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/sheep"
)

// BenchmarkCalibration prints the score table of docs/difficulty.md:
// generated sheep deals of 60 tiles with 7 down to 4 slots, and random
// zuma hand levels, each row the scores of its solvable levels. Run with
// -benchtime=1x -v.
func BenchmarkCalibration(b *testing.B) {
	reg := Registry()
	for range b.N {
		rng := rand.New(rand.NewPCG(2018, 18))
		for _, slots := range []int{7, 6, 5, 4} {
			var data [][]byte
			for range 8 {
				g, err := sheep.Generate(rng, sheep.GenerateOpts{Tiles: 60, Layers: 6, Types: 5, Slots: slots, Solvable: slots >= 5})
				if err != nil {
					b.Fatal(err)
				}
				data = append(data, g.Level.Canonical())
			}
			calibrationRow(b, reg, fmt.Sprintf("sheep 60 tiles, %d slots", slots), data)
		}
		for _, size := range []int{6, 9, 12, 15} {
			var data [][]byte
			for range 12 {
				data = append(data, fmt.Appendf(nil, `{"kind":"zuma","board":%q,"hand":%q}`,
					zumaBoard(rng, size, 3), zumaBalls(rng, 5, 3)))
			}
			calibrationRow(b, reg, fmt.Sprintf("zuma board %d, hand 5, 3 colors", size), data)
		}
	}
}

func calibrationRow(b *testing.B, reg *solver.Registry, name string, data [][]byte) {
	var hist [11]int
	unsolvable, unknown := 0, 0
	rates := []float64{}
	for _, d := range data {
		lvl, err := reg.Parse(d)
		if err != nil {
			b.Fatal(err)
		}
		k := reg.KindOf(lvl)
		res, err := k.Solve(context.Background(), lvl, solver.Options{Budget: solver.Budget{MaxMS: 5000}})
		if err != nil {
			b.Fatal(err)
		}
		switch res.Verdict {
		case solver.Unsolvable:
			unsolvable++
			continue
		case solver.Unknown:
			unknown++
			continue
		}
		f, err := k.(difficulty.Rater).Rate(context.Background(), lvl, res, difficulty.Options{})
		if err != nil {
			b.Fatal(err)
		}
		hist[*f.Score]++
		rates = append(rates, f.Random.Rate)
	}
	med := 0.0
	if len(rates) > 0 {
		med = median(rates)
	}
	b.Logf("| %-34s | %v | %d | %d | %.3f |", name, hist[1:], unsolvable, unknown, med)
}
