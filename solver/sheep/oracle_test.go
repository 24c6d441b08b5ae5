package sheep

// The oracle decides a small level by brute force, written as plainly as
// possible and sharing nothing with the solver but the parsed tiles: it
// derives the cover relation itself, tries every clickable tile in index
// order and remembers the removed-sets already shown to lose (a plain
// memo, needed so unsolvable 24-tile levels finish). No prechecks, no
// ordering, no dominance.

type oracle struct {
	l         *Level
	covers    [][]bool // covers[a][b]: tile a covers tile b
	coveredBy []uint32 // coveredBy[b]: set of tiles covering b
	typ       []int    // type value of each tile
	dead      []uint64 // bitset over removed-sets shown to lose
}

func newOracle(l *Level) *oracle {
	n := len(l.tiles)
	o := &oracle{l: l, covers: make([][]bool, n), coveredBy: make([]uint32, n), dead: make([]uint64, (1<<n+63)/64)}
	pos := map[string]int{}
	for i, t := range l.tiles {
		pos[t.ID] = i
	}
	for a, ta := range l.tiles {
		o.covers[a] = make([]bool, n)
		for b, tb := range l.tiles {
			if l.geometry {
				dx, dy := ta.X-tb.X, ta.Y-tb.Y
				o.covers[a][b] = ta.Layer > tb.Layer &&
					dx < l.tileSize && -dx < l.tileSize && dy < l.tileSize && -dy < l.tileSize
			}
		}
		for _, id := range ta.Covers {
			o.covers[a][pos[id]] = true
		}
	}
	for a := range n {
		o.typ = append(o.typ, int(l.typ[a])) // dense type index
		for b := range n {
			if o.covers[a][b] {
				o.coveredBy[b] |= 1 << a
			}
		}
	}
	return o
}

// solve returns a winning line (tile indices) or nil.
func (o *oracle) solve() []int {
	var line []int
	if o.dfs(0, &line) {
		return line
	}
	return nil
}

func (o *oracle) dfs(removed uint32, line *[]int) bool {
	n := len(o.l.tiles)
	if removed == 1<<n-1 {
		return o.traySize(removed) == 0 // every tile gone, none left in the tray
	}
	if o.dead[removed/64]&(1<<(removed%64)) != 0 {
		return false
	}
	for i := 0; i < n; i++ {
		if removed&(1<<i) != 0 || !o.clickable(removed, i) {
			continue
		}
		next := removed | 1<<i
		if o.traySize(next) >= o.l.slots {
			continue
		}
		*line = append(*line, i)
		if o.dfs(next, line) {
			return true
		}
		*line = (*line)[:len(*line)-1]
	}
	o.dead[removed/64] |= 1 << (removed % 64)
	return false
}

func (o *oracle) clickable(removed uint32, i int) bool {
	return removed&o.coveredBy[i] == o.coveredBy[i]
}

// traySize: each type's clicked count mod 3 is what stays in the tray.
func (o *oracle) traySize(removed uint32) int {
	var count [MaxTypes]uint8
	size := 0
	for i, v := range o.typ {
		if removed&(1<<i) != 0 {
			count[v]++
			if count[v]%3 == 0 {
				size -= 2
			} else {
				size++
			}
		}
	}
	return size
}
