package twoends

// lineOracle answers f(i+1, j), the value of the interval left after an L
// move at [i, j], from two persistent scans: one anchored at j reading
// leftwards (still valid after L moves) and one anchored at i+1 reading
// rightwards (still valid after R moves). Only a change of direction costs
// a rescan of the remaining interval, so a line with c direction changes
// and reduction stacks of height h costs O(c·n + n·h); at worst O(n²).
type lineOracle struct {
	a      []int64
	fromR  scan // anchored at j, dir −1
	fromL  scan // anchored at i+1, dir +1
	rescan int  // rescans done (for tests and benchmarks)
}

// restOfL returns f(i+1, j) for i < j; lastR tells which scan to rebuild
// when neither covers the interval: the one that survives further moves
// in the direction of the last move.
func (o *lineOracle) restOfL(i, j int, lastR bool) int64 {
	switch {
	case o.fromR.covers(j, -1, i+1):
		return o.fromR.value(i + 1)
	case o.fromL.covers(i+1, +1, j):
		return o.fromL.value(j)
	case lastR:
		o.rescan++
		o.fromL.build(o.a, i+1, +1, j-i)
		return o.fromL.value(j)
	default:
		o.rescan++
		o.fromR.build(o.a, j, -1, j-i)
		return o.fromR.value(i + 1)
	}
}
