package columns

import "math/bits"

// chainPotential is the most points one jewel can set off: for every
// column that can still take a piece and every color that completes a
// match at the column's landing cell, it drops that single jewel there,
// resolves every chain step on a scratch board and keeps the largest gain.
//
// The threat count sees a match one jewel short; it does not see what the
// match sets off. A board where completing one match drops jewels into a
// second (and third) match scores k× per chain step k, so a player builds
// such boards and fires them late. This term is how the beam sees that:
// a position whose best trigger scores 12 is worth more than one whose
// triggers score 3 each. It only ranks positions, so it needs no proof;
// the real pieces still have to bring the jewel.
func (e *evaluator) chainPotential(b *board, paired *cellMask) int64 {
	g := e.g
	var best int64
	var scratch board
	for c := 0; c < g.w; c++ {
		h := int(b.h[c])
		if h+3 > g.h {
			continue
		}
		var m uint32
		if g.groups {
			m = e.groupThreats(b, paired, c, h)
		} else {
			m = e.lineThreats(b, c, h)
		}
		for ; m != 0; m &= m - 1 {
			v := byte(bits.TrailingZeros32(m))
			g.copyFrom(&scratch, b)
			scratch.cells[c*stride+h] = v
			scratch.h[c] = uint8(h + 1)
			var cand cellMask
			cand[c] = 1 << uint(h)
			t := target{c: -1, r: -1}
			if gain := int64(g.resolve(&scratch, &cand, &t)); gain > best {
				best = gain
			}
		}
	}
	return best
}
