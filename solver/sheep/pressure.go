package sheep

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
// When no type passes, the state is dead and the search prunes it. The
// check with f = 1 is what genMoves already does for a click that leaves
// one slot; the bound reaches any number of free slots.

// pressure is the scratch space of the check, reused across nodes.
type pressure struct {
	up     [][]int32 // tiles directly covering each tile
	epoch  int64
	seen   []int64 // epoch when a tile's closure was computed
	ready  []int32 // remaining coverers with a small closure, this epoch
	start  []int32 // closure of a tile: arena[start:start+size]
	size   []int32
	arena  []int32
	queue  []int32
	byType [][]int32 // tiles with a small closure, per type
	mark   []int64   // union scratch: stamped membership
	stamp  int64
}

func newPressure(l *Level) *pressure {
	n := len(l.tiles)
	p := &pressure{
		up:     make([][]int32, n),
		seen:   make([]int64, n),
		ready:  make([]int32, n),
		start:  make([]int32, n),
		size:   make([]int32, n),
		byType: make([][]int32, len(l.types)),
		mark:   make([]int64, n),
	}
	for a, bs := range l.below {
		for _, b := range bs {
			p.up[b] = append(p.up[b], int32(a))
		}
	}
	return p
}

// tripleWithin reports whether the claim above holds in b's state: false
// proves the state dead. b must have tiles left and a live tray.
func (b *board) tripleWithin() bool {
	f := int32(b.l.slots - b.traySize)
	for u, c := range b.tray {
		if need := 3 - int32(c); need <= f && b.clkTyp[u] >= need {
			return true
		}
	}
	p := b.press
	p.epoch++
	p.arena, p.queue = p.arena[:0], p.queue[:0]
	for u := range p.byType {
		p.byType[u] = p.byType[u][:0]
	}
	for _, i := range b.clk {
		p.seen[i] = p.epoch
		p.start[i], p.size[i] = int32(len(p.arena)), 1
		p.arena = append(p.arena, i)
		p.queue = append(p.queue, i)
	}
	for k := 0; k < len(p.queue); k++ {
		x := p.queue[k]
		p.byType[b.l.typ[x]] = append(p.byType[b.l.typ[x]], x)
		for _, c := range b.l.below[x] {
			if p.seen[c] != p.epoch {
				p.seen[c], p.ready[c] = p.epoch, 0
				p.size[c] = -1
			}
			if p.ready[c]++; p.ready[c] < b.cov[c] {
				continue
			}
			// Every remaining coverer of c has a small closure.
			if p.unionInto(c, f) {
				p.queue = append(p.queue, c)
			}
		}
	}
	for u, tiles := range p.byType {
		need := 3 - int(b.tray[u])
		if need <= len(tiles) && int32(need) <= f && p.someUnionWithin(tiles, need, f) {
			return true
		}
	}
	return false
}

// unionInto computes c's closure (c and its remaining coverers' closures)
// into the arena; it reports whether it has at most f tiles.
func (p *pressure) unionInto(c int32, f int32) bool {
	p.stamp++
	start := int32(len(p.arena))
	p.arena = append(p.arena, c)
	p.mark[c] = p.stamp
	for _, a := range p.up[c] {
		if p.seen[a] != p.epoch || p.size[a] < 0 {
			continue // removed (a remaining coverer always has a closure here)
		}
		for _, x := range p.arena[p.start[a] : p.start[a]+p.size[a]] {
			if p.mark[x] != p.stamp {
				p.mark[x] = p.stamp
				p.arena = append(p.arena, x)
				if int32(len(p.arena))-start > f {
					p.arena = p.arena[:start]
					return false
				}
			}
		}
	}
	p.start[c], p.size[c] = start, int32(len(p.arena))-start
	return true
}

// someUnionWithin reports whether need (1..3) of tiles have closures whose
// union has at most f tiles.
func (p *pressure) someUnionWithin(tiles []int32, need int, f int32) bool {
	closure := func(x int32) []int32 { return p.arena[p.start[x] : p.start[x]+p.size[x]] }
	// count marks the closures of xs and returns the union's size.
	count := func(xs ...int32) int32 {
		p.stamp++
		n := int32(0)
		for _, x := range xs {
			for _, y := range closure(x) {
				if p.mark[y] != p.stamp {
					p.mark[y] = p.stamp
					n++
				}
			}
		}
		return n
	}
	for i, a := range tiles {
		if need == 1 {
			if p.size[a] <= f {
				return true
			}
			continue
		}
		for j := i + 1; j < len(tiles); j++ {
			if need == 2 {
				if count(a, tiles[j]) <= f {
					return true
				}
				continue
			}
			for k := j + 1; k < len(tiles); k++ {
				if count(a, tiles[j], tiles[k]) <= f {
					return true
				}
			}
		}
	}
	return false
}
