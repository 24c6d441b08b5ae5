package columns

// colorCounts is the number of jewels of each color (index 1–26).
type colorCounts [27]int32

// remainingCounts returns, for each i, the jewel colors of pieces i..n-1.
func remainingCounts(l *Level) []colorCounts {
	rem := make([]colorCounts, len(l.pieces)+1)
	for i := len(l.pieces) - 1; i >= 0; i-- {
		rem[i] = rem[i+1]
		for _, v := range l.pieces[i] {
			rem[i][v]++
		}
	}
	return rem
}

// boardCounts counts the jewels of b by color.
func (g *geom) boardCounts(b *board) colorCounts {
	var cc colorCounts
	for c := 0; c < g.w; c++ {
		col := b.cells[c*stride : c*stride+int(b.h[c])]
		for _, v := range col {
			cc[v]++
		}
	}
	return cc
}

// clearPossible is false when some jewel color on b cannot gather 3
// jewels any more (board plus remaining pieces), so the board can never be
// emptied.
func clearPossible(bc, rem *colorCounts) bool {
	for v := 1; v < len(bc); v++ {
		if bc[v] > 0 && bc[v]+rem[v] < 3 {
			return false
		}
	}
	return true
}

// targetPossible is false when the target jewel's color cannot gather 3
// jewels any more.
func targetPossible(b *board, t target, rem *colorCounts, g *geom) bool {
	v := b.cells[int(t.c)*stride+int(t.r)]
	n := rem[v]
	for c := 0; c < g.w && n < 3; c++ {
		for _, x := range b.cells[c*stride : c*stride+int(b.h[c])] {
			if x == v {
				n++
			}
		}
	}
	return n >= 3
}

// scoreBound is an upper bound on the points still reachable: only jewels
// of colors with 3+ jewels (board plus remaining pieces) can vanish, each
// chain step removes 3 or more, and the best a total of R removals can
// score is one chain of steps of 3 with the rest in the last step.
func scoreBound(bc, rem *colorCounts) int64 {
	var r int64
	for v := 1; v < len(bc); v++ {
		if n := bc[v] + rem[v]; n >= 3 {
			r += int64(n)
		}
	}
	return chainBound(r)
}

// chainBound is max Σ r_k·k over steps with r_k ≥ 3 and Σ r_k ≤ r.
func chainBound(r int64) int64 {
	var best int64
	for s := int64(1); 3*s <= r; s++ {
		v := 3*s*(s-1)/2 + (r-3*(s-1))*s
		best = max(best, v)
	}
	return best
}
