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
// between p2 and p3, where no board ball is: at least 3 more insertions,
// all of one color (in hand mode, a color with 3 balls in hand).
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
//
// Weights (hand mode). Blocks are priced separately, so the cheapest
// partition may draw more balls of a color than the hand holds. Price an
// inserted ball of color c at w[c] = 1+λ[c] (λ ≥ 0): the cheapest
// weighted partition costs W(λ). A plan with used[c] insertions of color
// c (used[c] ≤ hand[c], Σ used[c] = k) clears the board through a
// partition whose blocks, and penalty groups, are made of distinct
// inserted balls of their own color (a penalty group sits between two
// neighbouring board balls, one group per such gap), so its weighted
// price is at most Σ w[c]·used[c]. Hence
//
//	k = Σ used[c] ≥ W(λ) - Σ λ[c]·used[c] ≥ W(λ) - Σ λ[c]·hand[c]
//
// for every λ (a Lagrangian bound): λ = 0 is the plain bound, and
// handBound raises λ on the colors the cheapest partition overdraws.

const inf = 1 << 12

// bounder holds the DP tables so a search reuses them. With w = len(b)+1,
// entry [i*w+e] of each plane is, for the interval b[i..e):
//
//	g: G(i,e)
//	s: F(i,e,1), b[i] the second member of its block
//	x: min over the next members p (b[p]==b[i], p in (i,e)) of
//	   G(i+1,p) + G(p+1,e): b[i] third and b[p] fourth member
//
// so F(i,e,2) = min(G(i+1,e), x) (close at 3 balls or take a fourth), and
// with b[i] third and a board neighbour of the second, min(G(i+1,e), pen+x).
type bounder struct {
	g, s, x []int16
	row     []int16 // the row being computed, three planes
	next    []int32 // next[p]: the next ball after p with b[p]'s color, n if none

	// The last computation's prices, for usage.
	n1, n2   [26]int16 // a block of color c with 1 or 2 board balls
	pen      int16     // the 3 inserted balls that let a block of 4 split a pair
	penColor byte      // the color pen pays for
}

// unitWeights prices every inserted ball at 1.
var unitWeights = func() (w [26]int16) {
	for c := range w {
		w[c] = 1
	}
	return w
}()

// bound returns the relaxation bound of board b; avail is the number of
// balls of each color that may be inserted, nil for unlimited. It returns
// inf or more when the board cannot be cleared. Afterwards bd.g holds
// G(i,e) for every interval.
func (bd *bounder) bound(b []byte, avail *[26]int8) int {
	return bd.weighted(b, avail, &unitWeights)
}

// weighted is bound with an inserted ball of color c priced w[c], for
// 1 ≤ w[c] ≤ 64 (so every sum below fits an int16). Entries are capped at
// inf: a cap never raises a value, so capped bounds stay admissible.
func (bd *bounder) weighted(b []byte, avail *[26]int8, w *[26]int16) int {
	n := len(b)
	if n == 0 {
		return 0
	}
	W := n + 1
	if cap(bd.g) < W*W {
		size := max(W*W, 33*33)
		bd.g, bd.s, bd.x = make([]int16, size), make([]int16, size), make([]int16, size)
	}
	if cap(bd.next) < W {
		bd.row, bd.next = make([]int16, 3*max(W, 33)), make([]int32, max(W, 33))
	}
	g, s, x := bd.g[:W*W], bd.s[:W*W], bd.x[:W*W]
	next := bd.next[:n]
	var last [26]int32
	for c := range last {
		last[c] = int32(n)
	}
	for p := n - 1; p >= 0; p-- {
		next[p] = last[b[p]-'A']
		last[b[p]-'A'] = int32(p)
	}
	bd.pen, bd.penColor = inf, 0
	for c := range 26 {
		bd.n1[c], bd.n2[c] = inf, inf
		if avail == nil || avail[c] >= 2 {
			bd.n1[c] = 2 * w[c]
		}
		if avail == nil || avail[c] >= 1 {
			bd.n2[c] = w[c]
		}
		if (avail == nil || avail[c] >= 3) && 3*w[c] < bd.pen {
			bd.pen, bd.penColor = 3*w[c], byte('A'+c)
		}
	}
	pen := bd.pen
	first, second, third := bd.row[:W], bd.row[W:2*W], bd.row[2*W:3*W]
	g[n*W+n] = 0
	for i := n - 1; i >= 0; i-- {
		// Row i (intervals [i,e), e in (i,n]): first the block closing at
		// b[i], then each next member p offers its intervals e in (p,n].
		// Entries are sums of at most three values ≤ inf: no overflow.
		c := b[i] - 'A'
		n1, n2 := bd.n1[c], bd.n2[c]
		rest := g[(i+1)*W+i+1 : (i+1)*W+W]
		fr, sr, xr := first[i+1 : W][:len(rest)], second[i+1 : W][:len(rest)], third[i+1 : W][:len(rest)]
		for k, r := range rest {
			fr[k], sr[k], xr[k] = n1+r, n2+r, inf
		}
		for p := int(next[i]); p < n; p = int(next[p]) {
			sp := s[p*W+p+1 : p*W+W]
			gp := g[(p+1)*W+p+1 : (p+1)*W+W][:len(sp)]
			xp := x[p*W+p+1 : p*W+W][:len(sp)]
			fr, sr, xr := first[p+1 : W][:len(sp)], second[p+1 : W][:len(sp)], third[p+1 : W][:len(sp)]
			if p == i+1 {
				// b[p] is b[i]'s neighbour: as third member after b[i]
				// second, a fourth costs pen more. The gap is empty.
				for k := range sp {
					fr[k] = min(fr[k], sp[k])
					sr[k] = min(sr[k], gp[k], pen+xp[k])
					xr[k] = min(xr[k], gp[k])
				}
				continue
			}
			base := g[(i+1)*W+p] // G(i+1,p), the gap before p
			for k := range sp {
				fr[k] = min(fr[k], base+sp[k])
				sr[k] = min(sr[k], base+min(gp[k], xp[k]))
				xr[k] = min(xr[k], base+gp[k])
			}
		}
		gi := g[i*W+i+1 : i*W+W][:len(fr)]
		si := s[i*W+i+1 : i*W+W][:len(fr)]
		xi := x[i*W+i+1 : i*W+W][:len(fr)]
		for k := range gi {
			gi[k], si[k], xi[k] = min(fr[k], inf), min(sr[k], inf), min(xr[k], inf)
		}
		g[i*W+i] = 0
	}
	return int(g[n])
}

// lagrangeSteps caps the subgradient steps of handBound.
const lagrangeSteps = 8

// handBound is the hand-mode bound of board b with hand: the best of the
// Lagrangian bounds (see the top of this file) along a few subgradient
// steps from λ = 0, each raising λ[c] by one for every color c that the
// last cheapest partition draws more of than the hand holds. Every step's
// bound is admissible whatever λ is, so how the steps are chosen only
// affects strength. It stops when the cheapest partition fits the hand
// (nothing left to raise) or the bound exceeds the hand, and returns inf
// when the board cannot be cleared with this hand (no plan uses more
// balls than the hand holds). The result depends only on (b, hand).
func (bd *bounder) handBound(b []byte, hand *[26]int8) int {
	h, _ := bd.handBoundAbove(b, hand, inf)
	return h
}

// handBoundAbove is handBound when that is at most cut (full true), and
// otherwise may stop as soon as it knows the bound exceeds cut, returning
// the lower bound it has (full false, or true when it is handBound).
func (bd *bounder) handBoundAbove(b []byte, hand *[26]int8, cut int) (h int, full bool) {
	total := 0
	for _, k := range hand {
		total += int(k)
	}
	w := unitWeights
	best := bd.weighted(b, hand, &w)
	if best > total {
		return inf, true
	}
	var lam [26]int16
	for range lagrangeSteps {
		if best > cut {
			return best, false
		}
		var use [26]int16
		bd.usage(b, &use)
		over := false
		for c := range use {
			if use[c] > int16(hand[c]) {
				lam[c]++
				over = true
			}
		}
		if !over {
			break
		}
		v := 0
		for c := range w {
			w[c] = 1 + lam[c]
			v -= int(lam[c]) * int(hand[c])
		}
		v += bd.weighted(b, hand, &w)
		best = max(best, v)
		if best > total {
			return inf, true
		}
	}
	return best, true
}

// usage adds to use the inserted balls, per color, of one cheapest
// partition found by the last computation, which was on board b and
// finite.
func (bd *bounder) usage(b []byte, use *[26]int16) {
	t := tracer{bd: bd, b: b, w: len(b) + 1, use: use}
	t.first(0, len(b))
}

// tracer follows the choices behind the values of bd's planes.
type tracer struct {
	bd  *bounder
	b   []byte
	w   int
	use *[26]int16
}

func (t *tracer) g(i, e int) int16 { return t.bd.g[i*t.w+e] }

// first follows G(i,e).
func (t *tracer) first(i, e int) {
	for i < e {
		c := t.b[i] - 'A'
		v := t.g(i, e)
		if t.bd.n1[c]+t.g(i+1, e) == v {
			t.use[c] += 2
			i++
			continue
		}
		for p := int(t.bd.next[i]); ; p = int(t.bd.next[p]) {
			if p >= e {
				panic("zuma: bound trace lost")
			}
			if t.g(i+1, p)+t.bd.s[p*t.w+e] == v {
				t.first(i+1, p)
				t.second(p, e)
				return
			}
		}
	}
}

// second follows F(i,e,1), b[i] the second member.
func (t *tracer) second(i, e int) {
	c := t.b[i] - 'A'
	v := t.bd.s[i*t.w+e]
	if t.bd.n2[c]+t.g(i+1, e) == v {
		t.use[c]++
		t.first(i+1, e)
		return
	}
	for p := int(t.bd.next[i]); p < e; p = int(t.bd.next[p]) {
		base, x := t.g(i+1, p), t.bd.x[p*t.w+e]
		switch {
		case base+t.g(p+1, e) == v: // b[p] third, the block closes
			t.first(i+1, p)
			t.first(p+1, e)
			return
		case p == i+1 && t.bd.pen+x == v:
			t.use[t.bd.penColor-'A'] += 3
			t.fourth(p, e)
			return
		case p != i+1 && base+x == v:
			t.first(i+1, p)
			t.fourth(p, e)
			return
		}
	}
	panic("zuma: bound trace lost")
}

// fourth follows x(i,e): b[i] third, the next member fourth.
func (t *tracer) fourth(i, e int) {
	v := t.bd.x[i*t.w+e]
	for p := int(t.bd.next[i]); p < e; p = int(t.bd.next[p]) {
		if t.g(i+1, p)+t.g(p+1, e) == v {
			t.first(i+1, p)
			t.first(p+1, e)
			return
		}
	}
	panic("zuma: bound trace lost")
}

// rootBound is the bound of a level's starting board (0 in ammo mode).
func rootBound(lvl *Level) int {
	bd := bounders.Get().(*bounder)
	defer bounders.Put(bd)
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
