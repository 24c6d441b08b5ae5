package columns

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// GenConfig describes random levels for tests and benchmarks.
type GenConfig struct {
	Width, Height int
	Rule          string  // RuleLines or RuleGroups
	Colors        int     // jewel colors used, 2–26
	Fill          float64 // mean column height as a fraction of Height
	Pieces        int
	Goal          string // goal type
	Score         int64  // score goal; 0 picks 2 points per piece
}

// Generate builds a random valid level: a settled board without matches
// (columns filled bottom-up, skipping colors that would match), random
// pieces and the goal; a target is a random jewel of the board.
func Generate(rng *rand.Rand, cfg GenConfig) (*Level, error) {
	if cfg.Colors < 2 || cfg.Colors > 26 {
		return nil, fmt.Errorf("columns: generate: colors must be 2–26, got %d", cfg.Colors)
	}
	g := geom{w: cfg.Width, h: cfg.Height, groups: cfg.Rule == RuleGroups}
	if g.w < MinWidth || g.w > MaxWidth || g.h < MinHeight || g.h > MaxHeight {
		return nil, fmt.Errorf("columns: generate: bad size %d×%d", g.w, g.h)
	}
	b := genBoard(rng, &g, cfg)
	in := levelJSON{Kind: Name, Width: g.w, Height: g.h, Rule: cfg.Rule,
		Board: rowsFromBoard(&b, g.w, g.h), Goal: &goalJSON{Type: cfg.Goal}}
	for range cfg.Pieces {
		p := make([]byte, 3)
		for j := range p {
			p[j] = byte('A' + rng.IntN(cfg.Colors))
		}
		in.Pieces = append(in.Pieces, string(p))
	}
	switch cfg.Goal {
	case GoalScore:
		s := cfg.Score
		if s == 0 {
			s = int64(2 * max(cfg.Pieces, 1))
		}
		in.Goal.Score = &s
	case GoalTarget:
		in.Goal.Cell = genTarget(rng, &b, &g)
	}
	data, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("columns: generate: %w", err)
	}
	return Parse(data)
}

func genBoard(rng *rand.Rand, g *geom, cfg GenConfig) board {
	var b board
	for c := 0; c < g.w; c++ {
		want := int(cfg.Fill * float64(g.h) * 2 * rng.Float64())
		want = min(want, g.h-3)
		for r := 0; r < want; r++ {
			if !genCell(rng, g, &b, c, r, cfg.Colors) {
				break
			}
		}
	}
	if cfg.Goal == GoalTarget && g.empty(&b) {
		b.cells[0], b.h[0] = 1, 1
	}
	return b
}

// genCell puts a color at (c, r) that makes no match; false if none does.
func genCell(rng *rand.Rand, g *geom, b *board, c, r, colors int) bool {
	off := rng.IntN(colors)
	idx := c*stride + r
	b.h[c] = uint8(r + 1)
	var cand cellMask
	cand[c] = 1 << uint(r)
	for k := range colors {
		b.cells[idx] = byte((off+k)%colors + 1)
		var marks cellMask
		if g.groups {
			g.markGroups(b, &cand, &marks)
		} else {
			g.markLines(b, &cand, &marks)
		}
		if marks == (cellMask{}) {
			return true
		}
	}
	b.cells[idx], b.h[c] = 0, uint8(r)
	return false
}

func genTarget(rng *rand.Rand, b *board, g *geom) *[2]int {
	var cells [][2]int
	for c := 0; c < g.w; c++ {
		for r := 0; r < int(b.h[c]); r++ {
			cells = append(cells, [2]int{g.h - 1 - r, c})
		}
	}
	cell := cells[rng.IntN(len(cells))]
	return &cell
}
