package twoends

// scan is a reduction of a[anchor], a[anchor+dir], … kept as a persistent
// stack: nodes are never changed once written, so the state after every
// prefix stays available (tops), and f of any interval that starts at the
// anchor (dir = +1) or ends there (dir = −1) is one walk down a stack.
type scan struct {
	dir    int
	anchor int
	val    []int64 // node values
	below  []int32 // node under each node, −1 at the bottom
	tops   []int32 // tops[k]: top node after k+1 values
	buf    []int64 // scratch for value
}

// build restarts the scan at anchor and pushes count values in direction dir.
func (s *scan) build(a []int64, anchor, dir, count int) {
	s.anchor, s.dir = anchor, dir
	s.val, s.below, s.tops = s.val[:0], s.below[:0], s.tops[:0]
	top := int32(-1)
	for k, p := 0, anchor; k < count; k, p = k+1, p+dir {
		top = s.push(top, a[p])
		s.tops = append(s.tops, top)
	}
}

// push is the persistent form of the package-level push: it collapses
// while the two nodes under the incoming value form x ≤ y ≥ v and returns
// the new top node.
func (s *scan) push(top int32, v int64) int32 {
	for top >= 0 {
		x := s.below[top]
		if x < 0 {
			break
		}
		xv, yv := s.val[x], s.val[top]
		if xv > yv || yv < v {
			break
		}
		v = xv - yv + v
		top = s.below[x]
	}
	s.val = append(s.val, v)
	s.below = append(s.below, top)
	return int32(len(s.val) - 1)
}

// covers reports whether the scan holds the interval between the anchor
// and p (inclusive), in its direction.
func (s *scan) covers(anchor, dir, p int) bool {
	k := (p - anchor) * dir
	return s.anchor == anchor && s.dir == dir && len(s.tops) > 0 && k >= 0 && k < len(s.tops)
}

// value is the game value of the interval between the anchor and p; the
// scan must cover it. The stack is read top first, i.e. reversed, which
// valleyValue does not mind (it is symmetric).
func (s *scan) value(p int) int64 {
	s.buf = s.buf[:0]
	for n := s.tops[(p-s.anchor)*s.dir]; n >= 0; n = s.below[n] {
		s.buf = append(s.buf, s.val[n])
	}
	return valleyValue(s.buf)
}
