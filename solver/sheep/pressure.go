package sheep

import "math/bits"

// The tray-pressure bound (sheep/4): a state is dead when no triple can be
// completed before the tray fills.
//
// Claim. Let a state have tiles left, traySize tiles in the tray and
// f = slots - traySize free slots. For a type u with c_u tiles in the tray
// let need_u = 3 - c_u. If the state can be won, then for some type u there
// is a set X of remaining tiles, closed upwards (every remaining tile that
// covers a member, transitively, is a member), holding at least need_u
// tiles of type u, with |X| <= f.
//
// Proof. Tiles are left, so a winning line from the state completes at
// least one more triple; let its first completion be of type u, at click
// k, and X the tiles of clicks 1..k. No triple vanishes before click k, so
// after click j < k the tray holds traySize + j tiles, which must stay
// below slots: traySize + k - 1 < slots, so k <= f. A tile is clicked only
// once every tile covering it is gone, so X is closed upwards, and click k
// brings the count of u to three: X holds need_u tiles of type u. |X| = k.
//
// The smallest upward-closed X holding need_u given tiles of type u is the
// union of their upward closures, so the check below looks for need_u
// tiles of one type whose closures have a union of at most f tiles. It
// only computes closures of at most f tiles (from the clickable tiles
// down: a tile's closure is itself plus its remaining coverers' closures),
// and only when the fast path (need_u clickable tiles of one type) fails.
// Closures are bitsets over the first 64 tiles the walk reaches; when it
// reaches more, the check gives up and calls the state live (skipping a
// prune is always sound).
// When no type passes, the state is dead and the search prunes it. The
// check with f = 1 is what genMoves already does for a click that leaves
// one slot; the bound reaches any number of free slots.

// pressure is the scratch space of the check, reused across nodes.
type pressure struct {
	up     []int32 // tiles directly covering each tile: up[upAt[i]:upAt[i+1]]
	upAt   []int32
	typ    []uint8 // the level's dense type of each tile
	epoch  int64
	seen   []int64  // epoch when a tile was reached by the walk
	ready  []int16  // remaining coverers with a small closure, this epoch
	local  []int8   // a small closure's tile: its bit in the closure sets, -1: none
	sets   []uint64 // closures as bitsets over local bits, by local bit
	queue  []int32
	byType [][]uint64 // closures of the tiles of each type with a small closure
}

func newPressure(l *Level) *pressure {
	n := len(l.tiles)
	p := &pressure{
		upAt:   make([]int32, n+1),
		typ:    l.typ,
		seen:   make([]int64, n),
		ready:  make([]int16, n),
		local:  make([]int8, n),
		byType: make([][]uint64, len(l.types)),
	}
	for i, k := range l.above {
		p.upAt[i+1] = p.upAt[i] + k
	}
	p.up = make([]int32, p.upAt[n])
	next := append([]int32(nil), p.upAt[:n]...)
	for a, bs := range l.below {
		for _, b := range bs {
			p.up[next[b]] = int32(a)
			next[b]++
		}
	}
	return p
}

// tripleWithin reports whether the claim above holds in b's state: false
// proves the state dead. b must have tiles left and a live tray.
func (b *board) tripleWithin() bool {
	f := b.l.slots - b.traySize
	for u, c := range b.tray {
		if need := 3 - int(c); need <= f && int(b.clkTyp[u]) >= need {
			return true
		}
	}
	p := b.press
	p.epoch++
	p.queue, p.sets = p.queue[:0], p.sets[:0]
	for u := range p.byType {
		p.byType[u] = p.byType[u][:0]
	}
	for _, i := range b.clk {
		if !p.reach(i, 0, f) {
			return true
		}
	}
	for k := 0; k < len(p.queue); k++ {
		x := p.queue[k]
		for _, c := range b.l.below[x] {
			if p.seen[c] != p.epoch {
				p.seen[c], p.ready[c], p.local[c] = p.epoch, 0, -1
			}
			if p.ready[c]++; p.ready[c] < b.cov[c] {
				continue
			}
			// Every remaining coverer of c has a small closure.
			var set uint64
			for _, a := range p.up[p.upAt[c]:p.upAt[c+1]] {
				if p.seen[a] == p.epoch && p.local[a] >= 0 {
					set |= p.sets[p.local[a]]
				}
			}
			if !p.reach(c, set, f) {
				return true
			}
		}
	}
	for u, sets := range p.byType {
		need := 3 - int(b.tray[u])
		if need <= len(sets) && need <= f && someUnionWithin(sets, need, f) {
			return true
		}
	}
	return false
}

// reach records tile i, whose coverers' closures are set, if its closure
// has at most f tiles. It reports false when the bitsets are full.
func (p *pressure) reach(i int32, set uint64, f int) bool {
	p.seen[i], p.local[i] = p.epoch, -1
	if len(p.sets) == 64 {
		return false
	}
	set |= 1 << len(p.sets)
	if bits.OnesCount64(set) > f {
		return true
	}
	p.local[i] = int8(len(p.sets))
	p.sets = append(p.sets, set)
	p.queue = append(p.queue, i)
	p.byType[p.typ[i]] = append(p.byType[p.typ[i]], set)
	return true
}

// someUnionWithin reports whether need (1..3) of sets have a union of at
// most f tiles.
func someUnionWithin(sets []uint64, need, f int) bool {
	for i, a := range sets {
		if need == 1 {
			return true // every recorded closure has at most f tiles
		}
		for j := i + 1; j < len(sets); j++ {
			ab := a | sets[j]
			if bits.OnesCount64(ab) > f {
				continue
			}
			if need == 2 {
				return true
			}
			for _, c := range sets[j+1:] {
				if bits.OnesCount64(ab|c) <= f {
					return true
				}
			}
		}
	}
	return false
}
