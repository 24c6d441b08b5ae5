package columns

import "math/bits"

// Board geometry limits.
const (
	MinWidth  = 3
	MaxWidth  = 16
	MinHeight = 3
	MaxHeight = 32
	stride    = 32 // cells per column in board.cells
)

// board is the simulator's compact position: packed columns of one byte
// per cell (0 empty, 1–26 jewels 'A'–'Z'), column c at cells[c*stride:],
// row 0 at the bottom. Cells at or above a column's height are always 0.
type board struct {
	cells [MaxWidth * stride]byte
	h     [MaxWidth]uint8
}

// target follows the target jewel: column c, row r from the bottom;
// r < 0 once it has been removed; c < 0 when the goal has no target.
type target struct {
	c, r int8
}

func (t target) hit() bool { return t.c >= 0 && t.r < 0 }

// geom holds what the simulator needs of a level.
type geom struct {
	w, h   int
	groups bool
}

// copyFrom copies the used part of src into b.
func (g *geom) copyFrom(b, src *board) {
	n := g.w * stride
	copy(b.cells[:n], src.cells[:n])
	b.h = src.h
}

// empty reports whether no jewel is left.
func (g *geom) empty(b *board) bool {
	for c := 0; c < g.w; c++ {
		if b.h[c] != 0 {
			return false
		}
	}
	return true
}

// place drops piece p (jewel codes top to bottom) rotated by rot into
// column col and resolves every chain step. It returns the points scored
// and false when the piece does not fit (the game is lost; b is then
// unchanged).
func (g *geom) place(b *board, col, rot int, p *[3]byte, t *target) (int, bool) {
	hh := int(b.h[col])
	if hh+3 > g.h {
		return 0, false
	}
	base := col*stride + hh
	// rotated[i] = p[(i-rot) mod 3]; the bottom jewel is rotated[2].
	b.cells[base] = p[(5-rot)%3]
	b.cells[base+1] = p[(4-rot)%3]
	b.cells[base+2] = p[(3-rot)%3]
	b.h[col] = uint8(hh + 3)
	var cand cellMask
	cand[col] = 7 << uint(hh)
	return g.resolve(b, &cand, t), true
}

// resolve removes matches that involve a cell of cand, applies gravity and
// repeats with the cells that moved, until the board is stable. A new match
// always contains a placed or moved cell, because the board was stable
// before and every match of a step is removed.
func (g *geom) resolve(b *board, cand *cellMask, t *target) int {
	gain := 0
	for step := 1; ; step++ {
		var marks cellMask
		if g.groups {
			g.markGroups(b, cand, &marks)
		} else {
			g.markLines(b, cand, &marks)
		}
		n := 0
		for c := 0; c < g.w; c++ {
			n += bits.OnesCount32(marks[c])
		}
		if n == 0 {
			return gain
		}
		gain += n * step
		if t.c >= 0 && t.r >= 0 {
			m := marks[t.c]
			if m>>uint(t.r)&1 != 0 {
				t.r = -1
			} else {
				t.r -= int8(bits.OnesCount32(m & (1<<uint(t.r) - 1)))
			}
		}
		for c := 0; c < g.w; c++ {
			cand[c] = 0
			if marks[c] != 0 {
				cand[c] = g.collapse(b, c, marks[c])
			}
		}
	}
}

// collapse removes the marked cells m of column c, lets the jewels above
// fall and returns the cells that moved.
func (g *geom) collapse(b *board, c int, m uint32) uint32 {
	base := c * stride
	hh := int(b.h[c])
	lo := bits.TrailingZeros32(m)
	w := lo
	for r := lo; r < hh; r++ {
		if m>>uint(r)&1 == 0 {
			b.cells[base+w] = b.cells[base+r]
			w++
		}
	}
	for r := w; r < hh; r++ {
		b.cells[base+r] = 0
	}
	b.h[c] = uint8(w)
	return (1<<uint(w) - 1) &^ (1<<uint(lo) - 1)
}
