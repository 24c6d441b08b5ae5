package sheep

import (
	"math/bits"
	"slices"
)

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
		e.reach.click(&e.rows[n-i-1], &e.rows[n-i], t, true)
	}
}

// within reports whether the state b reached by clicking t, with more than
// depth tiles left, still has a state of W_J within reach (reach), and
// records its row for the clicks below it.
func (e *endgame) within(b *board, t int32) bool {
	return e.reach.click(&e.rows[b.left], &e.rows[b.left+1], t, true)
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
//
// Most clicks cost nothing: the tiles of the upper layers are on the
// board of no state of W_J (its states hold J tiles, near the bottom), so
// the row does not change; a row then shares its parent's words.
type reach struct {
	words int        // words of a set of W_J states
	has   []uint64   // per tile, words bits: the W_J states with the tile still on the board
	span  [][2]int32 // per tile, the words [lo, hi) where has is not zero (lo = hi: none)
}

// reachRow is the set of W_J states within reach of one state: words
// [lo, hi) of bits, the first and last of them not zero (lo = hi: none).
// bits is own, or the bits of a row it was clicked from when the click
// changed nothing.
type reachRow struct {
	own, bits []uint64
	lo, hi    int
}

func newReach(l *Level, wj *deadTable) *reach {
	n, w := len(l.tiles), wj.w
	r := &reach{words: (wj.len() + 63) / 64, span: make([][2]int32, n)}
	r.has = make([]uint64, n*r.words)
	for at, e := range reachOrder(wj, n) {
		key := wj.keys[int(e)*w : (int(e)+1)*w]
		for k, word := range key {
			for ; word != 0; word &= word - 1 {
				t := k*64 + bits.TrailingZeros64(word)
				r.has[t*r.words+at/64] |= 1 << (at % 64)
			}
		}
	}
	for t := range n {
		lo, hi := trim(r.has[t*r.words:(t+1)*r.words], 0, r.words)
		r.span[t] = [2]int32{int32(lo), int32(hi)}
	}
	return r
}

// trim narrows [lo, hi) to the words of w from its first to its last
// word that is not zero (lo = hi: all are zero).
func trim(w []uint64, lo, hi int) (int, int) {
	for lo < hi && w[lo] == 0 {
		lo++
	}
	for hi > lo && w[hi-1] == 0 {
		hi--
	}
	return lo, hi
}

// tileWords are words [lo, hi) of tile t's bitset: the W_J states among
// them with t still on the board.
func (r *reach) tileWords(t int32, lo, hi int) []uint64 {
	return r.has[int(t)*r.words+lo : int(t)*r.words+hi]
}

// reachOrder is the order of W_J's states in reach's bitsets: by the
// tiles they hold, the tiles in fewest states first (the highest of the
// endgame's tiles, clicked earliest on a line), a state holding a tile
// before one that does not. A click on those tiles in that order cuts a
// block off a row's front, and the words a click changes (reach.changed)
// are fewer: in the order the retrograde search found them, a tile's
// states lay across the whole table, and counting and building rows
// (reach.kept, reach.click) over those words was some 30 % of the
// helper's time on the hard capture-264 deals (over a tile's states,
// 0.58–0.67 of the table's words instead of 0.83–0.87 on deals 29 and
// 491). The key is the 64 tiles in fewest states (but in some); the
// order changes no row's contents, only where its bits lie.
func reachOrder(wj *deadTable, n int) []int32 {
	w, states := wj.w, wj.len()
	count := make([]int, n)
	for e := range states {
		for k, word := range wj.keys[e*w : (e+1)*w] {
			for ; word != 0; word &= word - 1 {
				count[k*64+bits.TrailingZeros64(word)]++
			}
		}
	}
	var tiles []int
	for t, c := range count {
		if c > 0 && c < states {
			tiles = append(tiles, t)
		}
	}
	slices.SortStableFunc(tiles, func(a, b int) int { return count[a] - count[b] })
	tiles = tiles[:min(len(tiles), 64)]
	keys := make([]uint64, states)
	order := make([]int32, states)
	for e := range states {
		key := wj.keys[e*w : (e+1)*w]
		for k, t := range tiles {
			if key[t/64]&(1<<(t%64)) != 0 {
				keys[e] |= 1 << (63 - k)
			}
		}
		order[e] = int32(e)
	}
	slices.SortFunc(order, func(a, b int32) int {
		switch {
		case keys[a] > keys[b]:
			return -1
		case keys[a] < keys[b]:
			return 1
		}
		return int(a - b)
	})
	return order
}

// full sets row to every state of W_J: all are within reach of the start.
func (r *reach) full(row *reachRow, states int) {
	row.own = row.own[:0]
	for range r.words {
		row.own = append(row.own, ^uint64(0))
	}
	if rem := states % 64; rem != 0 {
		row.own[r.words-1] = 1<<rem - 1
	}
	row.bits, row.lo, row.hi = row.own, 0, r.words
}

// changed returns the words of src a click on t changes: [lo, hi), empty
// when t is on the board of none of src's states.
func (r *reach) changed(src *reachRow, t int32) (lo, hi int) {
	sp := r.span[t]
	return max(src.lo, int(sp[0])), min(src.hi, int(sp[1]))
}

// alive reports whether some state of src stays within reach once tile t
// is clicked, without building the row: src's first and last words are
// not zero, so it is, unless the click changes all of src's words.
func (r *reach) alive(src *reachRow, t int32) bool {
	lo, hi := r.changed(src, t)
	if lo >= hi || lo > src.lo || hi < src.hi {
		return true
	}
	s, has := src.bits[lo:hi], r.tileWords(t, lo, hi)
	has = has[:len(s)] // no bounds checks below
	for k, w := range s {
		if w&^has[k] != 0 {
			return true
		}
	}
	return false
}

// click sets dst to the states of src still within reach once tile t is
// clicked, and reports whether any is. With share, dst shares src's words
// when the click changes none (the caller keeps src unchanged while dst
// is used: the depth-first line's rows of its ancestors).
func (r *reach) click(dst, src *reachRow, t int32, share bool) bool {
	lo, hi := r.changed(src, t)
	if lo >= hi && share {
		dst.bits, dst.lo, dst.hi = src.bits, src.lo, src.hi
		return true
	}
	if cap(dst.own) < r.words {
		dst.own = make([]uint64, r.words)
	}
	own := dst.own[:r.words]
	// Words outside [src.lo, src.hi) of own may hold an older row's bits;
	// they are never read. One pass over the changed words, without
	// bounds checks: the exact pass clicks a row at every node, and with
	// a deep table a copy, a second pass and trimming through dst's
	// fields took 46 % of the helper's time on a hard P20 deal.
	if lo < hi { // src.lo ≤ lo < hi ≤ src.hi
		copy(own[src.lo:lo], src.bits[src.lo:lo])
		s, has, d := src.bits[lo:hi], r.tileWords(t, lo, hi), own[lo:hi]
		has, d = has[:len(s)], d[:len(s)] // no bounds checks below
		for k, w := range s {
			d[k] = w &^ has[k]
		}
		copy(own[hi:src.hi], src.bits[hi:src.hi])
	} else {
		copy(own[src.lo:src.hi], src.bits[src.lo:src.hi])
	}
	a, z := trim(own, src.lo, src.hi)
	dst.own, dst.bits, dst.lo, dst.hi = own, own, a, z
	return a < z
}

// size is how many states row holds.
func (row *reachRow) size() int {
	n := 0
	for _, w := range row.bits[row.lo:row.hi] {
		n += bits.OnesCount64(w)
	}
	return n
}

// kept is how many states of src (n of them: src.size()) stay within
// reach once tile t is clicked: n less those with t on their board. It
// reads the words the click changes, as click does, without building
// the row.
func (r *reach) kept(src *reachRow, t int32, n int) int {
	lo, hi := r.changed(src, t)
	if lo >= hi {
		return n
	}
	s, has := src.bits[lo:hi], r.tileWords(t, lo, hi)
	has = has[:len(s)] // no bounds checks below
	for k, w := range s {
		n -= bits.OnesCount64(w & has[k])
	}
	return n
}
