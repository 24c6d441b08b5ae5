package twoends

// lineOracle answers f(i+1, j), the value of the interval left after an L
// move at [i, j], from two persistent scans: one anchored at j reading
// leftwards (still valid after L moves) and one anchored at i+1 reading
// rightwards (still valid after R moves). Only a change of direction costs
// a rescan of the remaining interval, so a line with c direction changes
// and reduction stacks of height h costs O(c·n + n·h); at worst O(n²).
type lineOracle struct {
	a      []int64
	peaks  []int32 // peaks[k]: number of peaks among a[1..k−1]
	fromR  scan    // anchored at j, dir −1
	fromL  scan    // anchored at i+1, dir +1
	rescan int     // rescans done (for tests and benchmarks)
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

// newLineOracle prepares the peak counts of a.
func newLineOracle(a []int64) *lineOracle {
	o := &lineOracle{a: a, peaks: make([]int32, len(a)+1)}
	for k := 1; k < len(a); k++ {
		o.peaks[k+1] = o.peaks[k]
		if k+1 < len(a) && a[k-1] <= a[k] && a[k] >= a[k+1] {
			o.peaks[k+1]++
		}
	}
	return o
}

// valley reports whether a[i..j] has no interior peak (x ≤ y ≥ z). On a
// valley every interior value is below the larger end, so taking the
// larger end is optimal and, when the left end is strictly smaller, L is
// strictly worse (a flip of the alternating sorted sum that loses at least
// 2·(max − second largest) > 0): the canonical move is L iff a[i] ≥ a[j].
func (o *lineOracle) valley(i, j int) bool {
	return j-i < 2 || o.peaks[j] == o.peaks[i+1]
}
