package sheep

import "slices"

// move is a candidate click with its ordering score.
type move struct {
	tile  int32
	score int64
}

// genMoves appends the moves worth trying from b's state to buf, best
// first. It leaves out clicks that lose at once, clicks of a tile while a
// dominating tile of its type is clickable (graph.go proves this sound),
// and clicks after which the tray is one short of full with no triple
// completable next (the next click would lose, so that state is dead).
// It also leaves out the moves of asleep, the state's sleep set (sleep.go:
// each leads to a dead state), before scoring them: in the unlimited pass
// of L255 deals there are two to three asleep moves per node, and scoring
// them was a tenth of the pass's time.
// The order is a pure function of the state, seed and sleep set (see
// score), which checkpoints rely on.
func (b *board) genMoves(buf []int32, scratch []move, seed int, asleep []int32) ([]int32, []move) {
	scratch = scratch[:0]
	for _, i := range b.clk {
		if !b.legal(i) || b.dominated(i) || slices.Contains(asleep, i) {
			continue
		}
		s, ok := b.score(i, seed)
		if ok {
			scratch = append(scratch, move{tile: i, score: s})
		}
	}
	// slices.SortFunc, not sort.Slice: no reflection or allocation per node.
	slices.SortFunc(scratch, func(x, y move) int {
		if x.score != y.score {
			if x.score > y.score {
				return -1
			}
			return 1
		}
		return int(x.tile - y.tile)
	})
	for _, m := range scratch {
		buf = append(buf, m.tile)
	}
	return buf, scratch
}

// orderNoise is the spread of the random bonus that reorders the moves of
// restarts, in units of Level.beneath.
const orderNoise = 30

// score rates clicking i. A click that completes a triple comes first (it
// frees two slots and costs nothing). Then the tile with the most tiles
// transitively beneath it: the game is lost in tall stacks whose order is
// forced, so they are dug out while free tiles are kept to pair with what
// they uncover; on 200 random realistic levels this alone took the share
// won by one DFS within 2M nodes from 78% to 98%. A seed s > 0 (a
// restart) adds a random bonus in [0, orderNoise) drawn from a hash of (s,
// tile, state), so restarts explore different lines while the order stays
// a function of the state.
// Ties go to the pair and triple look-ahead class, then to the tile index.
// ok is false when the click leads to a dead state (see genMoves).
func (b *board) score(i int32, seed int) (int64, bool) {
	l := b.l
	t := l.typ[i]
	c := b.tray[t]
	sameNext := int64(b.clkTyp[t] - 1)
	for _, d := range l.below[i] {
		if b.cov[d] == 1 && l.typ[d] == t {
			sameNext++
		}
	}
	var class int64
	switch {
	case c == 2:
		class = 5
	case c == 1 && sameNext >= 1:
		class = 4
	case c == 0 && sameNext >= 2:
		class = 3
	case c == 1:
		class = 2
	case c == 0 && sameNext == 1:
		class = 1
	}
	if c != 2 && b.traySize+2 == l.slots && !b.canCompleteAfter(i, sameNext) {
		return 0, false
	}
	dig := int64(l.beneath[i])
	if seed > 0 {
		dig += int64(mix64(uint64(seed)*0x9E3779B97F4A7C15^uint64(i)*0xD1B54A32D192ED03^b.hash) % orderNoise)
	}
	var first int64
	if c == 2 {
		first = 1
	}
	return first<<62 | dig<<8 | class, true
}

// canCompleteAfter reports whether, after the non-completing click i, some
// type with two tiles in the tray has a clickable tile.
func (b *board) canCompleteAfter(i int32, sameNext int64) bool {
	l := b.l
	t := l.typ[i]
	if b.tray[t] == 1 && sameNext >= 1 {
		return true
	}
	for u, c := range b.tray {
		if c == 2 && uint8(u) != t && b.clkTyp[u] > 0 {
			return true
		}
	}
	for _, d := range l.below[i] {
		if b.cov[d] == 1 && l.typ[d] != t && b.tray[l.typ[d]] == 2 {
			return true
		}
	}
	return false
}
