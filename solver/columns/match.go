package columns

// lineDirs are the four line directions as (column, row) steps.
var lineDirs = [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}

// markLines marks every jewel on a run of 3+ equal jewels (row, column or
// diagonal) that goes through a cell of cand.
func (g *geom) markLines(b *board, cand []uint16, marks *[MaxWidth]uint32) {
	for _, idx := range cand {
		c0, r0 := int(idx/stride), int(idx%stride)
		v := b.cells[idx]
		if v == 0 {
			continue
		}
		for _, d := range lineDirs {
			dc, dr := d[0], d[1]
			fw := 0
			for c, r := c0+dc, r0+dr; c < g.w && r >= 0 && r < g.h && b.cells[c*stride+r] == v; c, r = c+dc, r+dr {
				fw++
			}
			bw := 0
			for c, r := c0-dc, r0-dr; c >= 0 && r >= 0 && r < g.h && b.cells[c*stride+r] == v; c, r = c-dc, r-dr {
				bw++
			}
			if fw+bw < 2 {
				continue
			}
			for k, c, r := -bw, c0-bw*dc, r0-bw*dr; k <= fw; k, c, r = k+1, c+dc, r+dr {
				marks[c] |= 1 << uint(r)
			}
		}
	}
}

// markGroups marks every jewel of an 8-connected group of 3+ equal jewels
// that contains a cell of cand.
func (g *geom) markGroups(b *board, cand []uint16, marks *[MaxWidth]uint32) {
	var seen [MaxWidth]uint32
	var stack, group [MaxWidth * stride]uint16
	for _, idx := range cand {
		c0, r0 := int(idx/stride), int(idx%stride)
		v := b.cells[idx]
		if v == 0 || seen[c0]>>uint(r0)&1 != 0 {
			continue
		}
		seen[c0] |= 1 << uint(r0)
		sp, gn := 1, 0
		stack[0] = idx
		for sp > 0 {
			sp--
			cur := stack[sp]
			group[gn] = cur
			gn++
			c1, r1 := int(cur/stride), int(cur%stride)
			for c := max(c1-1, 0); c <= min(c1+1, g.w-1); c++ {
				for r := max(r1-1, 0); r <= min(r1+1, g.h-1); r++ {
					if seen[c]>>uint(r)&1 != 0 || b.cells[c*stride+r] != v {
						continue
					}
					seen[c] |= 1 << uint(r)
					stack[sp] = uint16(c*stride + r)
					sp++
				}
			}
		}
		if gn < 3 {
			continue
		}
		for _, cell := range group[:gn] {
			marks[cell/stride] |= 1 << uint(cell%stride)
		}
	}
}
