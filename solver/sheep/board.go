package sheep

// board is the mutable state of one search: removed tiles, covered-by
// counters, the clickable list and the tray. A move costs O(tiles the
// clicked tile covers); undo restores the exact previous state (LIFO).
type board struct {
	l       *Level
	cov     []int32  // remaining tiles covering each tile
	removed []uint64 // bitset of clicked tiles
	hash    uint64   // Zobrist hash of removed
	zob     []uint64

	clk    []int32 // clickable tiles (order is an implementation detail)
	pos    []int32 // position in clk, -1 if not clickable
	clkTyp []int32 // clickable tiles per type

	tray     []int8 // tiles of each type in the tray (0..2)
	traySize int
	left     int // tiles not yet clicked
	depth    int // tiles clicked

	press *pressure // scratch of the tray-pressure bound (pressure.go)

	undoP []int32 // per applied move: position in clk
	undoK []int32 // per applied move: tiles it made clickable
}

func newBoard(l *Level) *board {
	n := len(l.tiles)
	b := &board{
		l:       l,
		cov:     append([]int32(nil), l.above...),
		removed: make([]uint64, (n+63)/64),
		zob:     zobrist(n),
		pos:     make([]int32, n),
		clkTyp:  make([]int32, len(l.types)),
		tray:    make([]int8, len(l.types)),
		left:    n,
		press:   newPressure(l),
	}
	for i := range b.pos {
		b.pos[i] = -1
		if b.cov[i] == 0 {
			b.pos[i] = int32(len(b.clk))
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
		if b.pos[d] >= 0 {
			return true
		}
	}
	return false
}

// apply clicks clickable tile i.
func (b *board) apply(i int32) {
	p := b.pos[i]
	last := b.clk[len(b.clk)-1]
	b.clk[p] = last
	b.pos[last] = p
	b.clk = b.clk[:len(b.clk)-1]
	b.pos[i] = -1
	t := b.l.typ[i]
	b.clkTyp[t]--
	k := int32(0)
	for _, c := range b.l.below[i] {
		if b.cov[c]--; b.cov[c] == 0 {
			b.pos[c] = int32(len(b.clk))
			b.clk = append(b.clk, c)
			b.clkTyp[b.l.typ[c]]++
			k++
		}
	}
	b.removed[i>>6] |= 1 << (uint(i) & 63)
	b.hash ^= b.zob[i]
	b.left--
	b.depth++
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
	b.hash ^= b.zob[i]
	b.removed[i>>6] &^= 1 << (uint(i) & 63)
	for ; k > 0; k-- {
		c := b.clk[len(b.clk)-1]
		b.clk = b.clk[:len(b.clk)-1]
		b.pos[c] = -1
		b.clkTyp[b.l.typ[c]]--
	}
	for _, c := range b.l.below[i] {
		b.cov[c]++
	}
	if int(p) == len(b.clk) {
		b.clk = append(b.clk, i)
	} else {
		e := b.clk[p]
		b.pos[e] = int32(len(b.clk))
		b.clk = append(b.clk, e)
		b.clk[p] = i
	}
	b.pos[i] = p
	b.clkTyp[t]++
}

// cleared is the number of tiles that vanished so far.
func (b *board) cleared() int { return b.depth - b.traySize }
