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
		for _, c := range []struct{ tiles, slots int }{{30, 7}, {30, 5}, {60, 7}, {60, 6}, {60, 5}, {90, 7}, {90, 5}} {
			var data [][]byte
			for range 8 {
				g, err := sheep.Generate(rng, sheep.GenerateOpts{Tiles: c.tiles, Layers: 6, Types: 5, Slots: c.slots, Solvable: true})
				if err != nil {
					b.Fatal(err)
				}
				data = append(data, g.Level.Canonical())
			}
			calibrationRow(b, reg, fmt.Sprintf("sheep %d tiles, %d slots", c.tiles, c.slots), data)
		}
		for _, pairs := range []int{2, 3, 4, 5, 6} {
			var data [][]byte
			for range 8 {
				board, hand := pairsLevel(rng, pairs, 4)
				data = append(data, fmt.Appendf(nil, `{"kind":"zuma","board":%q,"hand":%q}`, board, hand))
			}
			calibrationRow(b, reg, fmt.Sprintf("zuma %d pairs, 1 ball each + 1", pairs), data)
		}
	}
}

// pairsLevel is a zuma board of pairs of colors (no two neighbouring
// pairs alike) with a hand of one ball per pair and one spare: always
// solvable by completing each pair.
func pairsLevel(rng *rand.Rand, pairs, colors int) (string, string) {
	var board, hand []byte
	for i := 0; i < pairs; i++ {
		c := byte('A' + rng.IntN(colors))
		for len(board) > 0 && board[len(board)-1] == c {
			c = byte('A' + rng.IntN(colors))
		}
		board = append(board, c, c)
		hand = append(hand, c)
	}
	hand = append(hand, byte('A'+rng.IntN(colors)))
	return string(board), string(hand)
}

func calibrationRow(b *testing.B, reg *solver.Registry, name string, data [][]byte) {
	var hist [11]int
	unsolvable, unknown := 0, 0
	rates, greedy, first := []float64{}, []float64{}, []float64{}
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
		rates, greedy = append(rates, f.Random.Rate), append(greedy, f.Greedy.Rate)
		if f.First != nil {
			first = append(first, f.First.Share)
		}
	}
	b.Logf("| %-34s | %v | %d | %d | %.3f | %.3f | %.2f |", name, hist[1:], unsolvable, unknown, median(rates), median(greedy), median(first))
}
