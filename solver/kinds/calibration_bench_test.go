package kinds

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/difficulty"
	"github.com/puzzled/puzzled/solver/sheep"
)

// BenchmarkCalibration prints the score table of docs/difficulty.md:
// generated sheep deals of 30 to 90 tiles with 7 down to 5 slots, deals
// of a 150-tile mound layout with more types and fewer slots, zuma pair
// boards in hand and ammo mode, real-size zuma hand levels, columns boards
// with a growing score goal and long columns levels, each row the scores
// of its solvable levels. Run with -benchtime=1x -v.
func BenchmarkCalibration(b *testing.B) {
	reg := Registry()
	for range b.N {
		rng := rand.New(rand.NewPCG(2018, 18))
		mound, err := sheep.Generate(rand.New(rand.NewPCG(33, 3)), sheep.GenerateOpts{Tiles: 150, Layers: 16, Types: 6, Mounds: 1, Spread: 16})
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct{ types, slots int }{{6, 7}, {10, 7}, {10, 6}, {10, 5}, {14, 7}} {
			var data [][]byte
			for k := range 8 {
				d, err := sheep.Deal(rand.New(rand.NewPCG(33, uint64(k))), mound.Level, c.types)
				if err != nil {
					b.Fatal(err)
				}
				data = append(data, withSlots(d.Canonical(), c.slots))
			}
			calibrationRow(b, reg, fmt.Sprintf("sheep 150-tile mound, %d types, %d slots", c.types, c.slots), data)
		}
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
		for _, pairs := range []int{2, 3, 4, 5, 6, 8} {
			var data [][]byte
			for range 8 {
				board, hand := pairsLevel(rng, pairs, 4)
				ammo := []byte(hand)
				rng.Shuffle(len(ammo), func(i, j int) { ammo[i], ammo[j] = ammo[j], ammo[i] })
				data = append(data, fmt.Appendf(nil, `{"kind":"zuma","board":%q,"ammo":%q}`, board, ammo))
			}
			calibrationRow(b, reg, fmt.Sprintf("zuma ammo %d pairs, shuffled", pairs), data)
		}
		// Real-size hand levels: random boards of 24–32 balls, hands of
		// 6–8 (most are unsolvable; the row shows the solvable ones).
		var large [][]byte
		for range 24 {
			colors := 3 + rng.IntN(2)
			large = append(large, fmt.Appendf(nil, `{"kind":"zuma","board":%q,"hand":%q}`,
				zumaBoard(rng, 24+rng.IntN(9), colors), zumaBalls(rng, 6+rng.IntN(3), colors)))
		}
		calibrationRow(b, reg, "zuma hand, board 24–32, hand 6–8", large)
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
		// Long levels: 6×13, 40–60 pieces, a score goal of 4 points a piece.
		for _, perPiece := range []int64{2, 4, 6} {
			var data [][]byte
			for i := range 6 {
				pieces := 40 + 4*i
				l, err := columns.Generate(rand.New(rand.NewPCG(uint64(i), 1919)), columns.GenConfig{Width: 6, Height: 13,
					Rule: columns.RuleLines, Colors: 5, Fill: 0.3, Pieces: pieces, Goal: columns.GoalScore, Score: perPiece * int64(pieces)})
				if err != nil {
					b.Fatal(err)
				}
				data = append(data, l.Canonical())
			}
			calibrationRow(b, reg, fmt.Sprintf("columns 6×13, 40–60 pieces, %d points a piece", perPiece), data)
		}
	}
}

// withSlots sets a native sheep level's tray size.
func withSlots(level []byte, slots int) []byte {
	var m map[string]any
	if err := json.Unmarshal(level, &m); err != nil {
		panic(err)
	}
	m["slots"] = slots
	out, _ := json.Marshal(m)
	return out
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
	rates, greedy, first, pos := []float64{}, []float64{}, []float64{}, []float64{}
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
		if f.Ladder != nil {
			pos = append(pos, f.Ladder.Position)
		}
		if f.First != nil {
			first = append(first, f.First.Share)
		}
	}
	b.Logf("| %-44s | %v | %d | %d | %s | %s | %s | %s |", name, hist[1:], unsolvable, unknown,
		medianText(pos, "%.2f"), medianText(rates, "%.3f"), medianText(greedy, "%.3f"), medianText(first, "%.2f"))
}

// medianText is the median of x in format, or "–" when x is empty.
func medianText(x []float64, format string) string {
	if len(x) == 0 {
		return "–"
	}
	return fmt.Sprintf(format, median(x))
}
