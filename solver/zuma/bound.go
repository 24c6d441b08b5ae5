package zuma

// The admissible lower bound used by the hand and unlimited searches
// (and, per interval, by the ammo search).
//
// Relaxation. Number every ball that is ever on the board by its place in
// one global row (a ball keeps its place; inserted balls get a place
// between their neighbours). In any plan, each ball that vanishes does so
// in exactly one group: the balls of one maximal run of ≥ 3, contiguous
// among the balls alive at that moment. Two groups never cross: if group
// H vanished before group G and had a ball between two balls of G, H's
// balls were contiguous among live balls while those G balls were alive,
// so all of H lies between the same two G balls.
//
// Eagerness. A stable board has no run of 3+, and a run vanishes the
// moment it reaches 3. A group grows by an inserted ball (a run of ≤ 2
// plus one) or by a join (two runs of ≤ 2 meeting when what was between
// them vanished), so every group has 3 or 4 balls. A group of 4 board
// balls p1<p2<p3<p4 is two pairs {p1,p2} and {p3,p4} joining last; if p2
// and p3 were neighbours on the board, something was inserted between
// them and vanished before the pairs met, in a group lying wholly
// between p2 and p3, where no board ball is: at least 3 more insertions.
//
// So a plan with k insertions that clears the board gives a non-crossing
// partition of (board + inserted balls) into monochromatic blocks of 3 or
// 4 balls, and the bound is the least number of inserted balls for which
// such a partition exists (with the penalty above). Inserted balls may sit
// anywhere, so a block with m ≤ 4 board balls costs max(0, 3-m), and the
// gaps between its board balls are independent sub-problems:
//
//	G(i,e)   = cost to clear b[i..e) = F(i,e,0)
//	F(i,e,k) = cost to clear b[i..e) when b[i] is member k+1 of its block:
//	           close the block at i:  need(k+1) + G(i+1,e)
//	           or, while k+1 < 4, take the next member p in (i,e) with
//	           b[p]==b[i]:            G(i+1,p) + F(p,e,k+1) (+3 as above)
//
// A run is never forced to stay whole (two balls of a run may go to
// different blocks), which is what lets the bound see plans that split a
// run. In hand mode a block of color c needing more than hand[c] balls is
// impossible (each block draws its balls from the hand), so need() is
// infinite there: still a relaxation of the real game.

const inf = 1 << 12

// DP states of F: members of the block before b[i].
const (
	fFirst   = iota // b[i] is the first member
	fSecond         // the second
	fThird          // the third, not a board neighbour of the second
	fThirdNb        // the third, board neighbour of the second
	fFourth         // the fourth: the block closes
	fStates
)

// bounder holds the DP tables so a search reuses them.
type bounder struct {
	g    []int16 // g[i*(n+1)+e] = G(i,e)
	f    []int16
	next []int
}

// bound returns the relaxation bound of board b; avail is the number of
// balls of each color that may be inserted, nil for unlimited. It returns
// inf or more when the board cannot be cleared. Afterwards bd.g holds
// G(i,e) for every interval.
func (bd *bounder) bound(b []byte, avail *[26]int8) int {
	n := len(b)
	if n == 0 {
		return 0
	}
	w := n + 1
	if cap(bd.g) < w*w {
		bd.g = make([]int16, w*w)
		bd.f = make([]int16, w*w*fStates)
	}
	g, f := bd.g[:w*w], bd.f[:w*w*fStates]
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
			first, second, third, thirdNb, fourth := n1+rest, n2+rest, rest, rest, rest
			for p := next[i]; p < e; p = next[p] {
				base := g[(i+1)*w+p]
				fp := f[(p*w+e)*fStates:]
				first = min(first, base+fp[fSecond])
				if p == i+1 {
					second = min(second, fp[fThirdNb])
				} else {
					second = min(second, base+fp[fThird])
				}
				third = min(third, base+fp[fFourth])
				thirdNb = min(thirdNb, 3+base+fp[fFourth])
			}
			fi := f[(i*w+e)*fStates:]
			fi[fFirst], fi[fSecond], fi[fThird] = min(first, inf), min(second, inf), min(third, inf)
			fi[fThirdNb], fi[fFourth] = min(thirdNb, inf), min(fourth, inf)
			g[i*w+e] = fi[fFirst]
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
