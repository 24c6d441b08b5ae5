package twoends

// push adds v to the reduction stack st[:k] and returns the new height.
// While the top two x, y and the incoming z satisfy x ≤ y ≥ z, the three
// collapse into x − y + z, which becomes the incoming value. st must have
// room for one more value.
func push(st []int64, k int, v int64) int {
	for k >= 2 {
		x, y := st[k-2], st[k-1]
		if x > y || y < v {
			break
		}
		v = x - y + v
		k -= 2
	}
	st[k] = v
	return k + 1
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
// buf is scratch space and may be nil; it is returned, grown if needed.
func gameValue(a []int64, buf []int64) (int64, []int64) {
	if cap(buf) < len(a) {
		buf = make([]int64, len(a))
	}
	st := buf[:len(a)]
	k := 0
	for _, v := range a {
		k = push(st, k, v)
	}
	return valleyValue(st[:k]), buf
}
