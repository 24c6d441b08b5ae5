package zuma

// The admissible lower bound used by the hand and unlimited searches.
//
// Relaxation. Number every ball that is ever on the board by its place in
// one global row (a ball keeps its place; inserted balls get a place
// between their neighbours). In any plan that clears the board, each ball
// vanishes in exactly one group: ≥ 3 balls of one color, contiguous among
// the balls alive at that moment. Two groups never cross: if group H
// vanished before group G and had a ball between two balls of G, H's balls
// were contiguous among live balls while those G balls were alive, so all
// of H lies between the same two G balls. Hence a plan with k insertions
// gives a non-crossing partition of (board + k inserted balls) into
// monochromatic blocks of size ≥ 3, and
//
//	lower bound = least number of inserted balls such that such a partition
//	exists,
//
// which ignores when runs vanish (eagerly, whole maximal runs). Inserted
// balls may sit anywhere, so a block with m board balls costs max(0, 3-m)
// insertions, and the gaps between its board balls are independent
// sub-problems. Over the board balls b[0..n):
//
//	G(i,e)   = cost to clear b[i..e) = F(i,e,0)
//	F(i,e,k) = cost to clear b[i..e) when b[i]'s block already has k
//	           balls on its left (k capped at 2):
//	         = min( need(k+1) + G(i+1,e),
//	                min over p in (i,e) with b[p]==b[i] of G(i+1,p) + F(p,e,min(2,k+1)) )
//
// A run is never forced to stay whole (two balls of a run may go to
// different blocks), which is what lets the bound see plans that split a
// run. In hand mode a block of color c needing more than hand[c] balls is
// impossible (each block draws its balls from the hand), so need() is
// infinite there: still a relaxation of the real game.

const inf = 1 << 12

// bounder holds the DP tables so a search reuses them.
type bounder struct {
	g    []int16
	f    []int16
	next []int
}

// bound returns the relaxation bound of board b; avail is the number of
// balls of each color that may be inserted, nil for unlimited. It returns
// inf or more when the board cannot be cleared.
func (bd *bounder) bound(b []byte, avail *[26]int8) int {
	n := len(b)
	if n == 0 {
		return 0
	}
	w := n + 1
	if cap(bd.g) < w*w {
		bd.g = make([]int16, w*w)
		bd.f = make([]int16, w*w*3)
	}
	g, f := bd.g[:w*w], bd.f[:w*w*3]
	// next[p]: the next ball after p with b[p]'s color, n if none.
	if cap(bd.next) < n {
		bd.next = make([]int, n)
	}
	next := bd.next[:n]
	var last [26]int
	for c := range last {
		last[c] = n
	}
	for p := n - 1; p >= 0; p-- {
		next[p] = last[b[p]-'A']
		last[b[p]-'A'] = p
	}
	g[n*w+n] = 0
	for i := n - 1; i >= 0; i-- {
		g[i*w+i] = 0
		c := b[i]
		n1, n2 := need(1, c, avail), need(2, c, avail)
		for e := i + 1; e <= n; e++ {
			rest := g[(i+1)*w+e]
			b0, b1, b2 := n1+rest, n2+rest, rest
			for p := next[i]; p < e; p = next[p] {
				base := g[(i+1)*w+p]
				fp := f[(p*w+e)*3:]
				b0 = min(b0, base+fp[1])
				b12 := base + fp[2]
				b1 = min(b1, b12)
				b2 = min(b2, b12)
			}
			fi := f[(i*w+e)*3:]
			fi[0], fi[1], fi[2] = min(b0, inf), min(b1, inf), min(b2, inf)
			g[i*w+e] = fi[0]
		}
	}
	return int(g[n])
}

func need(m int, c byte, avail *[26]int8) int16 {
	r := int16(max(0, 3-m))
	if avail != nil && r > int16(avail[c-'A']) {
		return inf
	}
	return r
}

// rootBound is the bound of a level's starting board (0 in ammo mode).
func rootBound(lvl *Level) int {
	var bd bounder
	switch lvl.Mode {
	case ModeHand:
		hand := handCounts(lvl.Hand)
		return bd.bound([]byte(lvl.Board), &hand)
	case ModeUnlimited:
		return bd.bound([]byte(lvl.Board), nil)
	}
	return 0
}

func handCounts(hand string) [26]int8 {
	var h [26]int8
	for i := 0; i < len(hand); i++ {
		h[hand[i]-'A']++
	}
	return h
}
