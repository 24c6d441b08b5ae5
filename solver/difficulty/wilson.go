package difficulty

import "math"

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// wilson returns the 95% Wilson score interval of wins out of n. Unlike
// the normal approximation it stays inside [0, 1] and is not degenerate at
// 0 or n wins, which are common here (trivial and brutal levels).
func wilson(wins, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	p := float64(wins) / float64(n)
	fn := float64(n)
	z2 := z95 * z95
	den := 1 + z2/fn
	center := (p + z2/(2*fn)) / den
	half := z95 * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn)) / den
	lo, hi = math.Max(0, center-half), math.Min(1, center+half)
	// Rounding leaves the bounds a hair off 0 or 1 where they are exact.
	if wins == 0 {
		lo = 0
	}
	if wins == n {
		hi = 1
	}
	return lo, hi
}

func newRate(wins, n int) *Rate {
	lo, hi := wilson(wins, n)
	r := &Rate{Wins: wins, Games: n, Low: lo, High: hi}
	if n > 0 {
		r.Rate = float64(wins) / float64(n)
	}
	return r
}
