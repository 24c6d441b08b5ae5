package sheep

import "sort"

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
// The order is a pure function of the state, which checkpoints rely on.
func (b *board) genMoves(buf []int32, scratch []move) ([]int32, []move) {
	scratch = scratch[:0]
	for _, i := range b.clk {
		if !b.legal(i) || b.dominated(i) {
			continue
		}
		s, ok := b.score(i)
		if ok {
			scratch = append(scratch, move{tile: i, score: s})
		}
	}
	sort.Slice(scratch, func(x, y int) bool {
		if scratch[x].score != scratch[y].score {
			return scratch[x].score > scratch[y].score
		}
		return scratch[x].tile < scratch[y].tile
	})
	for _, m := range scratch {
		buf = append(buf, m.tile)
	}
	return buf, scratch
}

// score rates clicking i: completing a triple first, then pairs that can
// be completed next, then tiles that uncover the most and cover the most.
// ok is false when the click leads to a dead state (see genMoves).
func (b *board) score(i int32) (int64, bool) {
	l := b.l
	t := l.typ[i]
	c := b.tray[t]
	unc := int64(0)
	sameNext := int64(b.clkTyp[t] - 1)
	for _, d := range l.below[i] {
		if b.cov[d] == 1 {
			unc++
			if l.typ[d] == t {
				sameNext++
			}
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
	return class<<32 | unc<<16 | int64(len(l.below[i])), true
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
