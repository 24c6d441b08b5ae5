package sheep

import (
	"context"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/puzzled/puzzled/solver"
)

// Projection proofs (proof "projection"). Keep only the tiles of a set S
// of types, let tile a cover tile b of S whenever a lies transitively above
// b in the level, and keep the tray size. If that smaller level L_S is
// unsolvable, so is the level L:
//
// Let W be a winning line of L and W_S its clicks of S tiles, in order.
//   - Each click of W_S is legal in L_S: the tiles covering x in L_S lie
//     transitively above x in L, so W clicked them all before x (a tile
//     is clickable only once every tile above it, transitively, is gone),
//     and they come before x in W_S too.
//   - The tray of L_S after each click of W_S holds, per type of S, what
//     the tray of L holds at that point of W (a vanish takes three tiles
//     of one type, so it happens in both at the same click), a part of a
//     tray that never reached `slots` tiles; so W_S never loses.
//   - W clears every tile, so W_S clears every tile of L_S.
//
// So W_S wins L_S. An exhausted search of L_S (exact, with the same sound
// prunings) is therefore a proof that L is unsolvable. A projection onto
// t types can only lose when 2t >= slots, and it is only worth searching
// when it is much smaller than L, so projections take ceil(slots/2)+1 to
// a few more types.

// closure returns, for each tile, the bitset of tiles transitively below it.
func closure(l *Level) [][]uint64 {
	n := len(l.tiles)
	w := (n + 63) / 64
	indeg := append([]int32(nil), l.above...)
	order := make([]int32, 0, n)
	for i, d := range indeg {
		if d == 0 {
			order = append(order, int32(i))
		}
	}
	for k := 0; k < len(order); k++ {
		for _, b := range l.below[order[k]] {
			if indeg[b]--; indeg[b] == 0 {
				order = append(order, b)
			}
		}
	}
	sets := make([][]uint64, n)
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		s := make([]uint64, w)
		for _, b := range l.below[i] {
			s[b/64] |= 1 << (uint(b) % 64)
			for j, v := range sets[b] {
				s[j] |= v
			}
		}
		sets[i] = s
	}
	return sets
}

// project builds L_S for the dense types whose bits are set in mask. Its
// cover graph is the transitive reduction of the relation restricted to
// S (the same clickability as the whole relation, with fewer edges to
// update per click). It skips what only results need (canonical form,
// covers lists of ids): L_S is only ever searched for exhaustion.
func project(l *Level, reach [][]uint64, mask uint64) *Level {
	n := len(l.tiles)
	newIdx := make([]int32, n)
	var keep []int32
	for i, t := range l.typ {
		newIdx[i] = -1
		if mask&(1<<t) != 0 {
			newIdx[i] = int32(len(keep))
			keep = append(keep, int32(i))
		}
	}
	m := len(keep)
	w := (m + 63) / 64
	// rs[k]: tiles of S transitively below kept tile k, in new indices.
	rs := make([][]uint64, m)
	for k, i := range keep {
		s := make([]uint64, w)
		for j, word := range reach[i] {
			for ; word != 0; word &= word - 1 {
				if b := newIdx[j*64+bits.TrailingZeros64(word)]; b >= 0 {
					s[b/64] |= 1 << (uint(b) % 64)
				}
			}
		}
		rs[k] = s
	}
	p := &Level{slots: l.slots, tiles: make([]Tile, m), typ: make([]uint8, m),
		below: make([][]int32, m), above: make([]int32, m)}
	dense := map[uint8]uint8{}
	for t := range l.types {
		if mask&(1<<t) != 0 {
			dense[uint8(t)] = uint8(len(p.types))
			p.types = append(p.types, l.types[t])
		}
	}
	indirect := make([]uint64, w)
	for k, i := range keep {
		p.tiles[k] = Tile{ID: l.tiles[i].ID, Type: l.tiles[i].Type}
		p.typ[k] = dense[l.typ[i]]
		clear(indirect)
		forEachBit(rs[k], func(c int) {
			for j, v := range rs[c] {
				indirect[j] |= v
			}
		})
		forEachBit(rs[k], func(b int) {
			if indirect[b/64]&(1<<(uint(b)%64)) == 0 {
				p.below[k] = append(p.below[k], int32(b))
				p.above[b]++
			}
		})
	}
	p.dom = dominators(p.below, p.typ)
	p.beneath = beneathCounts(p.below, p.above)
	return p
}

func forEachBit(set []uint64, f func(int)) {
	for j, word := range set {
		for ; word != 0; word &= word - 1 {
			f(j*64 + bits.TrailingZeros64(word))
		}
	}
}

// projectionPlan bounds the projection proofs of one level: subsets of
// minProjectionTypes(slots) to that +extra types, at most subsets of them,
// each searched for at most perNodes (at most maxProjectionNodes) nodes,
// at most total nodes in all; total 0 turns projections off (sheep/2).
// Building a projection costs about as much as a thousand nodes, hence
// the bound on subsets.
type projectionPlan struct {
	extra    int
	subsets  int
	perNodes int64
	total    int64
}

// maxProjectionNodes bounds perNodes. Verify repeats the search of the
// projection a proof names with this limit: a search exhausted within
// fewer nodes is exhausted within more (same order, same table).
const maxProjectionNodes = 1 << 16

// minProjectionTypes is the fewest types whose projection can lose: t
// types hold at most 2t tiles in the tray, so 2t >= slots is needed.
func minProjectionTypes(slots int) int { return (slots + 1) / 2 }

// projectionOutcome is how a projection attempt ended.
type projectionOutcome int

const (
	projNone    projectionOutcome = iota // no projection proved anything
	projProven                           // a projection is unsolvable: so is the level
	projStopped                          // the meter stopped the attempt
)

// projCursor is where the projection phase of a search is: the subset
// being tried (size types, mask), the nodes spent on earlier subsets, and
// the search of the current projection (nil before it starts). A
// checkpoint taken during the phase saves it all, the sub-search with its
// whole table, so a resumed phase continues exactly.
type projCursor struct {
	size  int
	mask  uint64
	spent int64
	tried int // subsets finished
	sub   *search
}

// projectionRange is the sizes of the subsets tried; lo > hi: none.
func (s *search) projectionRange() (lo, hi int) {
	l := s.b.l
	k := len(l.types)
	lo = max(minProjectionTypes(l.slots), 1)
	hi = min(lo+s.sched.proj.extra, k-1)
	if k > 63 {
		return 1, 0
	}
	return lo, hi
}

// newProjection starts the search of the cursor's projection, with the
// node limit its place in the phase gives it.
func (s *search) newProjection(reach [][]uint64) *search {
	c := s.cursor
	pp := s.sched.proj
	limit := min(pp.perNodes, maxProjectionNodes, pp.total-c.spent)
	sub := newSearch(project(s.b.l, reach, c.mask), s.m, schedule{first: limit, noPressure: s.sched.noPressure, pressureAll: true})
	sub.parent = s
	return sub
}

// proveByProjection searches projections of the level onto type subsets,
// in a fixed order (smaller subsets first, then by bit pattern), each
// until exhausted, solved or out of its node share. It is a pure function
// of the level and the plan unless the meter stops it; it continues from
// s.cursor. On projProven, mask names the types.
func (s *search) proveByProjection() (projectionOutcome, uint64) {
	lo, hi := s.projectionRange()
	if lo > hi {
		return projNone, 0
	}
	k := len(s.b.l.types)
	if s.cursor == nil {
		s.cursor = &projCursor{size: lo, mask: 1<<lo - 1}
	}
	c := s.cursor
	var reach [][]uint64
	for c.size <= hi {
		for c.mask < 1<<k {
			if c.spent >= s.sched.proj.total || c.tried >= s.sched.proj.subsets {
				return projNone, 0
			}
			if c.sub == nil {
				if reach == nil {
					reach = closure(s.b.l)
				}
				c.sub = s.newProjection(reach)
			}
			switch c.sub.run() {
			case outStopped:
				return projStopped, 0
			case outExhausted:
				return projProven, c.mask
			}
			c.spent += c.sub.passNodes
			c.tried++
			c.sub = nil
			c.mask = nextSubset(c.mask)
		}
		c.size++
		c.mask = 1<<c.size - 1
	}
	return projNone, 0
}

// nextSubset is the next larger integer with as many bits set (Gosper).
func nextSubset(mask uint64) uint64 {
	c := mask & -mask
	r := mask + c
	return (((r ^ mask) >> 2) / c) | r
}

// projectionProof renders the proof of a projection: the type values of S.
func projectionProof(l *Level, mask uint64) string {
	proof := "projection:types="
	for t, v := range l.types {
		if mask&(1<<t) != 0 {
			if proof[len(proof)-1] != '=' {
				proof += ","
			}
			proof += itoa(v)
		}
	}
	return proof
}

// checkProjectionProof repeats the search of the projection named by a
// "projection:types=..." proof and reports whether it is exhausted within
// projectionNodes nodes.
func checkProjectionProof(l *Level, list string) bool {
	var mask uint64
	count := 0
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.Atoi(f)
		if err != nil {
			return false
		}
		t := sort.SearchInts(l.types, v)
		if t == len(l.types) || l.types[t] != v || mask&(1<<t) != 0 {
			return false
		}
		mask |= 1 << t
		count++
	}
	if count >= len(l.types) || count < minProjectionTypes(l.slots) {
		return false
	}
	m, _ := solver.NewMeter(context.Background(), solver.Options{})
	s := newSearch(project(l, closure(l), mask), m, schedule{first: maxProjectionNodes, pressureAll: true})
	return s.run() == outExhausted
}
