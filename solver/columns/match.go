package columns

import (
	"encoding/binary"
	"math/bits"
)

// cellMask holds one bit per cell: bit r of [c] is row r of column c.
type cellMask [MaxWidth]uint32

// lineDirs are the four line directions as (column, row) steps.
var lineDirs = [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}

// markLines marks every jewel on a run of 3+ equal jewels (row, column or
// diagonal) that goes through a cell of cand.
func (g *geom) markLines(b *board, cand, marks *cellMask) {
	for c0 := 0; c0 < g.w; c0++ {
		for m := cand[c0]; m != 0; m &= m - 1 {
			r0 := bits.TrailingZeros32(m)
			v := b.cells[c0*stride+r0]
			if v == 0 {
				continue
			}
			for _, d := range lineDirs {
				g.markRun(b, c0, r0, d[0], d[1], v, marks)
			}
		}
	}
}

// markRun marks the run of v through (c0, r0) in direction (dc, dr) if it
// holds 3 or more jewels.
func (g *geom) markRun(b *board, c0, r0, dc, dr int, v byte, marks *cellMask) {
	fw := 0
	for c, r := c0+dc, r0+dr; c < g.w && r >= 0 && r < g.h && b.cells[c*stride+r] == v; c, r = c+dc, r+dr {
		fw++
	}
	bw := 0
	for c, r := c0-dc, r0-dr; c >= 0 && r >= 0 && r < g.h && b.cells[c*stride+r] == v; c, r = c-dc, r-dr {
		bw++
	}
	if fw+bw < 2 {
		return
	}
	for k, c, r := -bw, c0-bw*dc, r0-bw*dr; k <= fw; k, c, r = k+1, c+dc, r+dr {
		marks[c] |= 1 << uint(r)
	}
}

// markGroups marks every jewel of an 8-connected group of 3+ equal jewels
// that contains a cell of cand. The group grows bit-parallel: each round
// spreads it to the neighbouring rows and columns within the color's
// cells, until it stops growing.
func (g *geom) markGroups(b *board, cand, marks *cellMask) {
	var seen, color cellMask
	var have byte   // color whose cells are in color
	var done uint32 // columns of color filled in
	for c0 := 0; c0 < g.w; c0++ {
		for m := cand[c0] &^ seen[c0]; m != 0; m &= m - 1 {
			r0 := bits.TrailingZeros32(m)
			if seen[c0]>>uint(r0)&1 != 0 {
				continue
			}
			v := b.cells[c0*stride+r0]
			if v == 0 || !g.hasTwin(b, c0, r0, v) {
				continue
			}
			if v != have {
				have, done = v, 0
			}
			var grp cellMask
			grp[c0] = 1 << uint(r0)
			n := g.grow(b, v, &grp, &color, &done, c0)
			for c := 0; c < g.w; c++ {
				seen[c] |= grp[c]
				if n >= 3 {
					marks[c] |= grp[c]
				}
			}
		}
	}
}

// hasTwin reports whether a neighbour of (c0, r0) also holds v: a jewel
// without one is a group of 1.
func (g *geom) hasTwin(b *board, c0, r0 int, v byte) bool {
	for c := max(c0-1, 0); c <= min(c0+1, g.w-1); c++ {
		for r := max(r0-1, 0); r <= min(r0+1, g.h-1); r++ {
			if b.cells[c*stride+r] == v && (c != c0 || r != r0) {
				return true
			}
		}
	}
	return false
}

// colorCol returns the cells of column c that hold v, 8 cells per step: a
// byte of x^v is zero where the cell holds v; the zero bytes' flags are
// then gathered into 8 mask bits by one multiplication.
func (g *geom) colorCol(b *board, v byte, c int) uint32 {
	const lo7, hi = 0x7F7F7F7F7F7F7F7F, 0x8080808080808080
	pat := uint64(v) * 0x0101010101010101
	var x uint32
	for k := 0; 8*k < int(b.h[c]); k++ {
		t := binary.LittleEndian.Uint64(b.cells[c*stride+8*k:]) ^ pat
		z := ^((t&lo7 + lo7) | t | lo7) & hi // 0x80 in each zero byte
		x |= uint32((z*0x0002040810204081)>>56) << uint(8*k)
	}
	return x
}

// grow extends grp (one cell in column c0) to its 8-connected component
// of color v and returns its size. color caches the cells of v for the
// columns in done.
func (g *geom) grow(b *board, v byte, grp, color *cellMask, done *uint32, c0 int) int {
	lo, hi := c0, c0 // columns the group spans
	for {
		changed := false
		for c := max(lo-1, 0); c <= min(hi+1, g.w-1); c++ {
			if *done>>uint(c)&1 == 0 {
				color[c] = g.colorCol(b, v, c)
				*done |= 1 << uint(c)
			}
			x := grp[c]
			if c > 0 {
				x |= grp[c-1]
			}
			if c+1 < g.w {
				x |= grp[c+1]
			}
			x = (x | x<<1 | x>>1) & color[c]
			if x != grp[c] {
				grp[c] = x
				changed = true
				lo, hi = min(lo, c), max(hi, c)
			}
		}
		if !changed {
			break
		}
	}
	n := 0
	for c := lo; c <= hi; c++ {
		n += bits.OnesCount32(grp[c])
	}
	return n
}
