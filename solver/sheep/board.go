package sheep

import "slices"

// board is the mutable state of one search: removed tiles, covered-by
// counters, the clickable list and the tray. A move costs O(tiles the
// clicked tile covers); undo restores the exact previous state (LIFO).
//
// A wide beam holds two layers of up to 8000 boards, copies one per
// child kept and reads each parent's once, so the bytes per board set its
// speed: cov is int16 (a level has at most MaxTiles tiles, far below
// 32767) and the clickable tiles are a bitset besides clk, not a position
// per tile (docs/sheep.md, "Smaller boards").
type board struct {
	l       *Level
	cov     []int16  // remaining tiles covering each tile
	removed []uint64 // bitset of clicked tiles
	hash    uint64   // Zobrist hash of removed
	zob     []uint64

	clk     []int32  // clickable tiles (order is an implementation detail)
	clkBits []uint64 // bitset of the tiles in clk
	clkTyp  []int32  // clickable tiles per type

	tray     []int8 // tiles of each type in the tray (0..2)
	traySize int
	left     int // tiles not yet clicked
	depth    int // tiles clicked
	// dug is Level.beneath summed over the clicked tiles (beamEval's
	// tiles dug out), kept as tiles are clicked rather than counted per
	// beam parent, which was a twelfth of a wide beam's time.
	dug int64

	press *pressure // scratch of the tray-pressure bound (pressure.go)

	undoP []int32 // per applied move: position in clk
	undoK []int32 // per applied move: tiles it made clickable
}

func newBoard(l *Level) *board {
	n := len(l.tiles)
	b := &board{
		l:       l,
		cov:     make([]int16, n),
		removed: make([]uint64, (n+63)/64),
		zob:     zobrist(n),
		clkBits: make([]uint64, (n+63)/64),
		clkTyp:  make([]int32, len(l.types)),
		tray:    make([]int8, len(l.types)),
		left:    n,
		press:   newPressure(l),
	}
	for i := range b.cov {
		b.cov[i] = int16(l.above[i])
		if b.cov[i] == 0 {
			b.clkBits[i>>6] |= 1 << (uint(i) & 63)
			b.clk = append(b.clk, int32(i))
			b.clkTyp[l.typ[i]]++
		}
	}
	return b
}

// zobrist returns n fixed pseudo-random keys (splitmix64), so hashes are
// the same in every run.
func zobrist(n int) []uint64 {
	z := make([]uint64, n)
	x := uint64(0x5EED5EEDCAFEF00D)
	for i := range z {
		x += 0x9E3779B97F4A7C15
		z[i] = mix64(x)
	}
	return z
}

// mix64 is the splitmix64 finalizer: a fixed bijection that scrambles bits.
func mix64(v uint64) uint64 {
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// legal reports whether clicking clickable tile i does not lose at once.
func (b *board) legal(i int32) bool {
	return b.tray[b.l.typ[i]] == 2 || b.traySize+1 < b.l.slots
}

// dominated reports whether a clickable tile dominating i is clickable.
func (b *board) dominated(i int32) bool {
	for _, d := range b.l.dom[i] {
		if b.clickable(d) {
			return true
		}
	}
	return false
}

// clickable reports whether tile i is in clk.
func (b *board) clickable(i int32) bool { return b.clkBits[i>>6]&(1<<(uint(i)&63)) != 0 }

// apply clicks clickable tile i.
func (b *board) apply(i int32) {
	// A scan of the few clickable tiles (a cache line or two) rather than
	// a position per tile.
	p := int32(slices.Index(b.clk, i))
	b.clk[p] = b.clk[len(b.clk)-1]
	b.clk = b.clk[:len(b.clk)-1]
	b.clkBits[i>>6] &^= 1 << (uint(i) & 63)
	t := b.l.typ[i]
	b.clkTyp[t]--
	k := int32(0)
	for _, c := range b.l.below[i] {
		if b.cov[c]--; b.cov[c] == 0 {
			b.clkBits[c>>6] |= 1 << (uint(c) & 63)
			b.clk = append(b.clk, c)
			b.clkTyp[b.l.typ[c]]++
			k++
		}
	}
	b.removed[i>>6] |= 1 << (uint(i) & 63)
	b.hash ^= b.zob[i]
	b.left--
	b.depth++
	b.dug += int64(b.l.beneath[i])
	if b.tray[t] == 2 {
		b.tray[t] = 0
		b.traySize -= 2
	} else {
		b.tray[t]++
		b.traySize++
	}
	b.undoP = append(b.undoP, p)
	b.undoK = append(b.undoK, k)
}

// undo reverts the last apply, which clicked i.
func (b *board) undo(i int32) {
	top := len(b.undoP) - 1
	p, k := b.undoP[top], b.undoK[top]
	b.undoP, b.undoK = b.undoP[:top], b.undoK[:top]
	t := b.l.typ[i]
	if b.tray[t] == 0 {
		b.tray[t] = 2
		b.traySize += 2
	} else {
		b.tray[t]--
		b.traySize--
	}
	b.depth--
	b.left++
	b.dug -= int64(b.l.beneath[i])
	b.hash ^= b.zob[i]
	b.removed[i>>6] &^= 1 << (uint(i) & 63)
	for ; k > 0; k-- {
		c := b.clk[len(b.clk)-1]
		b.clk = b.clk[:len(b.clk)-1]
		b.clkBits[c>>6] &^= 1 << (uint(c) & 63)
		b.clkTyp[b.l.typ[c]]--
	}
	for _, c := range b.l.below[i] {
		b.cov[c]++
	}
	if int(p) == len(b.clk) {
		b.clk = append(b.clk, i)
	} else {
		e := b.clk[p]
		b.clk = append(b.clk, e)
		b.clk[p] = i
	}
	b.clkBits[i>>6] |= 1 << (uint(i) & 63)
	b.clkTyp[t]++
}

// cleared is the number of tiles that vanished so far.
func (b *board) cleared() int { return b.depth - b.traySize }
