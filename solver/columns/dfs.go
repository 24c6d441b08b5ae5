package columns

import (
	"github.com/puzzled/puzzled/solver"
)

// maxExactPieces is the longest sequence the exact search takes: a best
// continuation must fit in one 64-bit word at 6 bits per move.
const maxExactPieces = 10

// dfs is the exact depth-first search. For clear, target and survive it
// stops at the first plan (in column, rotation order) that reaches the
// goal; for score it maximises the total by branch and bound. Both use a
// transposition table on (position hash, piece index):
//   - goal search: a position whose subtree failed stores the best gain
//     seen in it and the line to it, so the best score found does not depend
//     on which transpositions were cut (and so neither on resumes);
//   - score search: a position stores an upper bound on its further gain.
type dfs struct {
	l     *Level
	g     *geom
	m     *solver.Meter
	moves [][]uint8
	rem   []colorCounts
	tt    *ttable

	boards []board
	tgts   []target
	acc    []int64
	path   []uint8

	best     int64
	bestLine []uint8
	found    bool
	goalLine []uint8
	stopAt   []uint8 // resume path when stopped, nil otherwise
}

type dfsStatus int

const (
	dfsDone dfsStatus = iota
	dfsFound
	dfsStopped
)

func newDFS(l *Level, m *solver.Meter) *dfs {
	n := len(l.pieces)
	s := &dfs{
		l: l, g: &l.geom, m: m,
		moves:  moveLists(l),
		rem:    remainingCounts(l),
		tt:     newTTable(ttBits(l)),
		boards: make([]board, n+1),
		tgts:   make([]target, n+1),
		acc:    make([]int64, n+1),
		path:   make([]uint8, n),
	}
	s.boards[0] = l.start
	s.tgts[0] = l.initialTarget()
	return s
}

// run searches from the root, continuing along resume (a path whose last
// node was entered with none of its children explored).
func (s *dfs) run(resume []uint8) dfsStatus {
	if s.l.Goal.Type == GoalScore {
		_, st := s.visitScore(0, resume)
		return st
	}
	_, _, st := s.visitGoal(0, resume)
	return st
}

// ttBits sizes the table to the estimated tree: 2^10–2^20 entries.
func ttBits(l *Level) uint {
	size := 1.0
	for _, ms := range moveLists(l) {
		size *= float64(len(ms))
	}
	b := uint(10)
	for b < 20 && float64(uint64(1)<<b) < size/4 {
		b++
	}
	return b
}

// start returns the first child index at depth d and the resume path below.
func (s *dfs) start(d int, rp []uint8) (int, []uint8) {
	if len(rp) == 0 {
		return 0, nil
	}
	for k, mv := range s.moves[d] {
		if mv == rp[0] {
			return k, rp[1:]
		}
	}
	return len(s.moves[d]), nil // validated on decode; unreachable
}

// child simulates move mv at depth d into depth d+1. It returns the gain
// and false on a top-out.
func (s *dfs) child(d int, mv uint8) (int64, bool) {
	s.g.copyFrom(&s.boards[d+1], &s.boards[d])
	s.tgts[d+1] = s.tgts[d]
	gain, ok := s.g.place(&s.boards[d+1], int(mv)/3, int(mv)%3, &s.l.pieces[d], &s.tgts[d+1])
	s.acc[d+1] = s.acc[d] + int64(gain)
	s.path[d] = mv
	if ok && s.acc[d+1] > s.best {
		s.best = s.acc[d+1]
		s.bestLine = append(s.bestLine[:0], s.path[:d+1]...)
	}
	return int64(gain), ok
}

func (s *dfs) stop(d int, mv uint8) {
	s.stopAt = append(append([]uint8{}, s.path[:d]...), mv)
}

func (s *dfs) checkpoint(d int) {
	if s.m.CheckpointDue() {
		s.m.Checkpoint(encodeDFS(s.path[:d], s.best, s.bestLine))
	}
}

// visitGoal explores the node at depth d for clear, target and survive.
// It returns the best further gain seen below it and the line to it.
func (s *dfs) visitGoal(d int, rp []uint8) (int64, uint64, dfsStatus) {
	s.checkpoint(d)
	k0, sub := s.start(d, rp)
	var bestG int64
	var bestSuf uint64
	n := len(s.l.pieces)
	for k := k0; k < len(s.moves[d]); k++ {
		mv := s.moves[d][k]
		if s.m.Tick() {
			s.stop(d, mv)
			return 0, 0, dfsStopped
		}
		gain, ok := s.child(d, mv)
		if !ok {
			continue
		}
		if s.l.goalReached(&s.boards[d+1], s.acc[d+1], s.tgts[d+1], d+1) {
			s.found = true
			s.goalLine = append([]uint8{}, s.path[:d+1]...)
			return 0, 0, dfsFound
		}
		childRP := sub
		if k != k0 {
			childRP = nil
		}
		g, suf := gain, uint64(mv)+1
		if d+1 < n && s.goalPossible(d+1) {
			key := ttKey(s.g.hash(&s.boards[d+1], s.tgts[d+1]), d+1)
			e, hit := s.tt.get(key)
			if partial := len(childRP) > 0; !hit || partial {
				cg, csuf, st := s.visitGoal(d+1, childRP)
				if st != dfsDone {
					return 0, 0, st
				}
				if !partial { // a resumed node skipped explored children
					s.tt.put(key, cg, csuf)
				}
				e = ttEntry{val: cg, suffix: csuf}
			} else if s.acc[d+1]+e.val > s.best {
				s.best = s.acc[d+1] + e.val
				s.bestLine = appendSuffix(append(s.bestLine[:0], s.path[:d+1]...), e.suffix)
			}
			g += e.val
			suf |= e.suffix << 6
		}
		if g > bestG {
			bestG, bestSuf = g, suf
		}
	}
	return bestG, bestSuf, dfsDone
}

// goalPossible applies the goal's cheap impossibility tests to the node at
// depth d.
func (s *dfs) goalPossible(d int) bool {
	switch s.l.Goal.Type {
	case GoalClear:
		bc := s.g.boardCounts(&s.boards[d])
		return clearPossible(&bc, &s.rem[d])
	case GoalTarget:
		return targetPossible(&s.boards[d], s.tgts[d], &s.rem[d], s.g)
	}
	return true
}

// visitScore explores the node at depth d for the score goal. It returns
// an upper bound on the further gain below it.
func (s *dfs) visitScore(d int, rp []uint8) (int64, dfsStatus) {
	s.checkpoint(d)
	k0, sub := s.start(d, rp)
	var bestU int64
	n := len(s.l.pieces)
	for k := k0; k < len(s.moves[d]); k++ {
		mv := s.moves[d][k]
		if s.m.Tick() {
			s.stop(d, mv)
			return 0, dfsStopped
		}
		gain, ok := s.child(d, mv)
		if !ok {
			continue
		}
		childRP := sub
		if k != k0 {
			childRP = nil
		}
		var cu int64
		if d+1 < n {
			bc := s.g.boardCounts(&s.boards[d+1])
			cu = scoreBound(&bc, &s.rem[d+1])
			key := ttKey(s.g.hash(&s.boards[d+1], s.tgts[d+1]), d+1)
			if e, hit := s.tt.get(key); hit && e.val < cu {
				cu = e.val
			}
			if s.acc[d+1]+cu > s.best {
				u, st := s.visitScore(d+1, childRP)
				if st != dfsDone {
					return 0, st
				}
				if len(childRP) == 0 { // a resumed node skipped explored children
					s.tt.put(key, u, 0)
				}
				cu = min(cu, u)
			}
		}
		bestU = max(bestU, gain+cu)
	}
	return bestU, dfsDone
}

// appendSuffix appends a packed continuation (6 bits per move, move+1).
func appendSuffix(line []uint8, suf uint64) []uint8 {
	for ; suf != 0; suf >>= 6 {
		line = append(line, uint8(suf&63)-1)
	}
	return line
}
