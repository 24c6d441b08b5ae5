package kinds

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/sheep"
)

// BenchmarkCalibration prints the score table of docs/difficulty.md:
// generated sheep deals of 30 to 90 tiles with 7 down to 5 slots, zuma
// pair boards in hand and ammo mode, and columns boards with a growing
// score goal, each row the scores of its solvable levels. Run with
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
		// Ammo: the same pairs, but the balls come in a shuffled order.
		for _, pairs := range []int{2, 3, 4, 5} {
			var data [][]byte
			for range 8 {
				board, hand := pairsLevel(rng, pairs, 4)
				ammo := []byte(hand)
				rng.Shuffle(len(ammo), func(i, j int) { ammo[i], ammo[j] = ammo[j], ammo[i] })
				data = append(data, fmt.Appendf(nil, `{"kind":"zuma","board":%q,"ammo":%q}`, board, ammo))
			}
			calibrationRow(b, reg, fmt.Sprintf("zuma ammo %d pairs, shuffled", pairs), data)
		}
		// Columns: the same 8 boards and pieces (seeds 0..7) with a higher
		// score goal in each row.
		for _, goal := range []int64{2, 5, 8, 11, 14, 17} {
			var data [][]byte
			for i := range 8 {
				l, err := columns.Generate(rand.New(rand.NewPCG(uint64(i), 2018)), columns.GenConfig{Width: 6, Height: 12,
					Rule: columns.RuleLines, Colors: 4, Fill: 0.3, Pieces: 5, Goal: columns.GoalScore, Score: goal})
				if err != nil {
					b.Fatal(err)
				}
				data = append(data, l.Canonical())
			}
			calibrationRow(b, reg, fmt.Sprintf("columns 6×12, 5 pieces, %d points", goal), data)
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
