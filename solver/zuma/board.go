package zuma

// This file is the simulator: one insertion and its chain reaction.
//
// A valid board has no run of 3+. Inserting one ball can create at most
// one such run (the one holding the new ball); when a run vanishes, the
// only place a new run of 3+ can form is where its two sides join. So
// everything that vanishes in one move is one contiguous interval of the
// board-with-the-ball-inserted, which chain computes without copying.

// chain returns the interval [lo, hi) of the virtual sequence
// b[:at] + c + b[at:] that vanishes when c is inserted at at.
// lo == hi when nothing vanishes.
func chain(b []byte, at int, c byte) (lo, hi int) {
	n := len(b) + 1
	get := func(i int) byte {
		switch {
		case i < at:
			return b[i]
		case i == at:
			return c
		default:
			return b[i-1]
		}
	}
	lo, hi = at, at+1
	for lo > 0 && get(lo-1) == c {
		lo--
	}
	for hi < n && get(hi) == c {
		hi++
	}
	if hi-lo < 3 {
		return at, at
	}
	for {
		a, z := lo-1, hi
		if a < 0 || z >= n {
			return lo, hi
		}
		d := get(a)
		if get(z) != d {
			return lo, hi
		}
		l2, h2 := a, z+1
		for l2 > 0 && get(l2-1) == d {
			l2--
		}
		for h2 < n && get(h2) == d {
			h2++
		}
		if (a-l2+1)+(h2-z) < 3 {
			return lo, hi
		}
		lo, hi = l2, h2
	}
}

// insert appends to dst the board after inserting c at at into b and the
// chain reaction, and returns it with the number of balls that vanished.
// dst must not alias b.
func insert(dst, b []byte, at int, c byte) ([]byte, int) {
	lo, hi := chain(b, at, c)
	dst = dst[:0]
	if lo == hi {
		dst = append(dst, b[:at]...)
		dst = append(dst, c)
		return append(dst, b[at:]...), 0
	}
	// The virtual sequence is b[:at] c b[at:]; keep [0,lo) and [hi,n).
	dst = appendVirtual(dst, b, at, c, 0, lo)
	dst = appendVirtual(dst, b, at, c, hi, len(b)+1)
	return dst, hi - lo
}

// appendVirtual appends the virtual sequence's [from, to) to dst.
func appendVirtual(dst, b []byte, at int, c byte, from, to int) []byte {
	for i := from; i < to; i++ {
		switch {
		case i < at:
			dst = append(dst, b[i])
		case i == at:
			dst = append(dst, c)
		default:
			dst = append(dst, b[i-1])
		}
	}
	return dst
}
