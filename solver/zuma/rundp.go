package zuma

// The interval DP over runs, corrected: dp(l, r, k) is the cost to clear
// runs l..r when k balls of run l's color are already joined to run l.
//
//	cnt = len(l) + k
//	cnt ≥ 3: the run vanished when it joined, dp = dp(l+1, r, 0)
//	else     min( 3-cnt + dp(l+1, r, 0),                          fill run l
//	              dp(l+1, m-1, 0) + dp(m, r, cnt) for m in (l, r]  join l to run m
//	              of l's color )
//
// It cannot split a run and assumes each segment is cleared in isolation,
// so its value is neither a lower bound nor always reachable by play: the
// solver only uses the plan it suggests, replayed (see executor.go), as
// an incumbent.

// runs splits b into run colors and lengths.
func runs(b []byte) (color []byte, length []int8) {
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && b[j] == b[i] {
			j++
		}
		color = append(color, b[i])
		length = append(length, int8(j-i))
		i = j
	}
	return color, length
}

type runDP struct {
	color  []byte
	length []int8
	k      int
	v      []int32 // v[(l*k+r)*3+x], r ≥ l
	choice []int32 // -1 fill, -2 vanished, m join
}

// newRunDP solves the DP over the given runs.
func newRunDP(color []byte, length []int8) *runDP {
	k := len(color)
	d := &runDP{color: color, length: length, k: k, v: make([]int32, k*k*3), choice: make([]int32, k*k*3)}
	for span := 1; span <= k; span++ {
		for l := 0; l+span <= k; l++ {
			r := l + span - 1
			for x := 0; x < 3; x++ {
				d.solve(l, r, x)
			}
		}
	}
	return d
}

func (d *runDP) at(l, r, x int) int32 {
	if l > r {
		return 0
	}
	return d.v[(l*d.k+r)*3+x]
}

func (d *runDP) solve(l, r, x int) {
	i := (l*d.k+r)*3 + x
	cnt := int(d.length[l]) + x
	if cnt >= 3 {
		d.v[i], d.choice[i] = d.at(l+1, r, 0), -2
		return
	}
	best, choice := int32(3-cnt)+d.at(l+1, r, 0), int32(-1)
	for m := l + 1; m <= r; m++ {
		if d.color[m] != d.color[l] {
			continue
		}
		if v := d.at(l+1, m-1, 0) + d.at(m, r, cnt); v < best {
			best, choice = v, int32(m)
		}
	}
	d.v[i], d.choice[i] = best, choice
}

// value is the DP's cost for all runs.
func (d *runDP) value() int {
	if d.k == 0 {
		return 0
	}
	return int(d.at(0, d.k-1, 0))
}

// actions lists, in play order, the runs (offset by base) the DP fills.
func (d *runDP) actions(dst []int32, base int32) []int32 {
	if d.k == 0 {
		return dst
	}
	return d.extract(dst, base, 0, d.k-1, 0)
}

func (d *runDP) extract(dst []int32, base int32, l, r, x int) []int32 {
	for l <= r {
		switch c := d.choice[(l*d.k+r)*3+x]; c {
		case -2:
			l, x = l+1, 0
		case -1:
			dst = append(dst, base+int32(l))
			l, x = l+1, 0
		default:
			m := int(c)
			dst = d.extract(dst, base, l+1, m-1, 0)
			x = int(d.length[l]) + x
			l = m
		}
	}
	return dst
}

// runDPValue is the run DP's value for board b (O(runs³)).
func runDPValue(b []byte) int {
	c, n := runs(b)
	return newRunDP(c, n).value()
}
