package sheep

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
}

func newEndgame(l *Level, layers []*deadTable) *endgame {
	n := len(l.tiles)
	e := &endgame{layers: layers, tiles: make([]uint64, (n+63)/64), key: make([]uint64, (n+63)/64)}
	for i, z := range zobrist(n) {
		e.tiles[i/64] |= 1 << (i % 64)
		e.zobAll ^= z
	}
	return e
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
