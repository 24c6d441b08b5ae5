package sheep

import "math/bits"

// The endgame table (sheep/11): the layers W_0..W_J of the retrograde
// search (retro.go), kept when it proves nothing. W_j holds every state
// with j tiles left from which the level can be cleared, exactly (a layer
// never drops a state, and states are told apart by their whole tile
// set), so the forward searches meet the backward one at J tiles left:
//
//   - every line passes through exactly one state with J tiles left (a
//     click removes one tile); a state there that is in W_J can be
//     cleared, and the table gives the clicks (finish);
//   - a state there that is not in W_J cannot: it is dead, whatever the
//     search below it would have tried.
//
// So neither the depth-first passes nor the beams search below J tiles
// left. On deals of the game's layouts the hard part is often that
// endgame: the bottom of a tower is wide, and a depth-first search that
// reached a winnable state with 80 tiles left spent 40M nodes below it
// without finding the way out, which the table knows at once.
//
// A cut at J is sound for every kind of search: a win is still a line,
// replayed by the simulator before it is returned, and a state called
// dead is one from which no line wins, so an exhaustive pass that counts
// it dead still proves what it claims (sleep sets and the dead-state
// table only ever rely on that).
type endgame struct {
	layers []*deadTable // W_0..W_J: states as the tiles left (retroSearch keys)
	tiles  []uint64     // the bitset of every tile
	zobAll uint64       // Zobrist hash of every tile: hash(left) = zobAll ^ hash(removed)
	key    []uint64     // scratch: the tiles left of the state looked up

	reach *reach     // W_J seen from above (reach)
	rows  []reachRow // per tiles left, the W_J states within reach on the depth-first line
}

func newEndgame(l *Level, layers []*deadTable) *endgame {
	n := len(l.tiles)
	e := &endgame{layers: layers, tiles: make([]uint64, (n+63)/64), key: make([]uint64, (n+63)/64)}
	for i, z := range zobrist(n) {
		e.tiles[i/64] |= 1 << (i % 64)
		e.zobAll ^= z
	}
	e.reach = newReach(l, layers[len(layers)-1])
	e.rows = make([]reachRow, n+1)
	e.reach.full(&e.rows[n], layers[len(layers)-1].len())
	return e
}

// follow sets the rows of the depth-first line to those of path, clicked
// from the start: the table may be built while a pass's line is open, and
// a resumed search replays its line without step.
func (e *endgame) follow(path []int32) {
	n := len(e.rows) - 1
	for i, t := range path {
		if n-i-1 <= e.depth() {
			return
		}
		e.reach.click(&e.rows[n-i-1], &e.rows[n-i], t)
	}
}

// within reports whether the state b reached by clicking t, with more than
// depth tiles left, still has a state of W_J within reach (reach), and
// records its row for the clicks below it.
func (e *endgame) within(b *board, t int32) bool {
	return e.reach.click(&e.rows[b.left], &e.rows[b.left+1], t)
}

// depth is J: the tiles left where the forward searches meet the table.
func (e *endgame) depth() int { return len(e.layers) - 1 }

// holds reports whether b's state, with at most depth tiles left, can be
// cleared.
func (e *endgame) holds(b *board) bool {
	for i := range e.key {
		e.key[i] = e.tiles[i] &^ b.removed[i]
	}
	return e.layers[b.left].contains(e.zobAll^b.hash, e.key)
}

// finish clicks b from a state the table holds to the empty board, one
// click into the next layer at a time, and returns line with the clicks
// appended. Such a click always exists: a state of W_j is a state of
// W_{j-1} plus a tile clickable in it whose click is legal. (Were it
// missing, the line would stop short, and the simulator's replay of the
// plan would reject it as no win: an error, never a wrong verdict.)
func (e *endgame) finish(b *board, line []int32) []int32 {
	for b.left > 0 {
		next := int32(-1)
		for _, t := range b.clk {
			if !b.legal(t) {
				continue
			}
			b.apply(t)
			held := e.holds(b)
			b.undo(t)
			if held {
				next = t
				break
			}
		}
		if next < 0 {
			return line
		}
		b.apply(next)
		line = append(line, next)
	}
	return line
}

// reach is the endgame table seen from above (sheep/12). Clicks only take
// tiles off the board, so a state with more than J tiles left can be
// cleared only through a state of W_J whose tiles left are all still on
// its board: when no state of W_J has its tiles left within the state's,
// no line from the state reaches W_J, and it is dead. The search keeps,
// along its line, the set of W_J states still within reach: a click on
// tile t drops those that still have t on the board (one AND NOT over a
// bitset of W_J). On a deal of level 100031 whose exact pass found no
// win in 20M nodes with the table alone, the two together won in 6.2M.
//
// At J tiles left the set holds at most the state itself, so it agrees
// with holds there; the cut only ever calls a state dead that is, so it
// is as sound as the table's cut at J (see endgame).
type reach struct {
	words int      // words of a set of W_J states
	has   []uint64 // per tile, words bits: the W_J states with the tile still on the board
}

// reachRow is the set of W_J states within reach of one state; bits
// outside words [lo, hi) are zero.
type reachRow struct {
	bits   []uint64
	lo, hi int
}

func newReach(l *Level, wj *deadTable) *reach {
	n, w := len(l.tiles), wj.w
	r := &reach{words: (wj.len() + 63) / 64}
	r.has = make([]uint64, n*r.words)
	for e := range wj.len() {
		key := wj.keys[e*w : (e+1)*w]
		for k, word := range key {
			for ; word != 0; word &= word - 1 {
				t := k*64 + bits.TrailingZeros64(word)
				r.has[t*r.words+e/64] |= 1 << (e % 64)
			}
		}
	}
	return r
}

// full sets row to every state of W_J: all are within reach of the start.
func (r *reach) full(row *reachRow, states int) {
	row.bits = row.bits[:0]
	for range r.words {
		row.bits = append(row.bits, ^uint64(0))
	}
	if rem := states % 64; rem != 0 {
		row.bits[r.words-1] = 1<<rem - 1
	}
	row.lo, row.hi = 0, r.words
}

// click sets dst to the states of src still within reach once tile t is
// clicked, and reports whether any is.
func (r *reach) click(dst, src *reachRow, t int32) bool {
	if cap(dst.bits) < r.words {
		dst.bits = make([]uint64, r.words)
	}
	dst.bits = dst.bits[:r.words]
	has := r.has[int(t)*r.words : (int(t)+1)*r.words]
	lo, hi := src.hi, src.lo
	for k := src.lo; k < src.hi; k++ {
		w := src.bits[k] &^ has[k]
		dst.bits[k] = w
		if w != 0 {
			lo, hi = min(lo, k), k+1
		}
	}
	if lo >= hi {
		dst.lo, dst.hi = 0, 0
		return false
	}
	// Words outside [lo, hi) of dst may hold an older line's bits; they
	// are never read.
	dst.lo, dst.hi = lo, hi
	return true
}
