package twoends

// collapse pushes v onto the reduction stack st and collapses while the top
// three x, y, z satisfy x ≤ y ≥ z, replacing them by x − y + z.
func collapse(st []int64, v int64) []int64 {
	st = append(st, v)
	for k := len(st); k >= 3; k = len(st) {
		x, y, z := st[k-3], st[k-2], st[k-1]
		if x > y || y < z {
			break
		}
		st[k-3] = x - y + z
		st = st[:k-2]
	}
	return st
}

// valleyValue is the game value of a valley-shaped sequence (no interior
// x ≤ y ≥ z): the mover takes the larger end each time, i.e. the values are
// taken in decreasing order, alternately by the mover and the opponent.
func valleyValue(st []int64) int64 {
	var v int64
	l, r := 0, len(st)-1
	for sign := int64(1); l <= r; sign = -sign {
		if st[l] >= st[r] {
			v += sign * st[l]
			l++
		} else {
			v += sign * st[r]
			r--
		}
	}
	return v
}

// gameValue is the optimal value (mover − opponent) of a, in O(len(a)).
// buf is scratch space and may be nil; the stack reuses it.
func gameValue(a []int64, buf []int64) (int64, []int64) {
	st := buf[:0]
	for _, v := range a {
		st = collapse(st, v)
	}
	return valleyValue(st), st
}
