package sheep

import (
	"github.com/puzzled/puzzled/solver"
)

// frame is one level of the DFS: its moves live in search.arena[start:end];
// next is the arena index of the next move to try.
type frame struct {
	start, end, next int32
}

// search is one exact depth-first search over a level.
type search struct {
	b       *board
	m       *solver.Meter
	dead    *deadTable
	arena   []int32
	frames  []frame
	path    []int32
	scratch []move

	best        []int32 // best partial line: most tiles cleared, first found
	bestCleared int
	fp          uint64 // level fingerprint, checked on resume

	ttHits int64
}

// outcome is how a search ended.
type outcome int

const (
	outSolved outcome = iota
	outExhausted
	outStopped
)

func newSearch(l *Level, m *solver.Meter) *search {
	return &search{
		b:    newBoard(l),
		m:    m,
		dead: newDeadTable(len(l.tiles)),
		fp:   fingerprint(l),
	}
}

// pushFrame generates the moves of the current state.
func (s *search) pushFrame() {
	start := int32(len(s.arena))
	s.arena, s.scratch = s.b.genMoves(s.arena, s.scratch)
	end := int32(len(s.arena))
	s.frames = append(s.frames, frame{start: start, end: end, next: start})
}

// run searches until a win, exhaustion or a stop. On outSolved s.path is
// the winning line.
func (s *search) run() outcome {
	if len(s.frames) == 0 {
		s.pushFrame()
	}
	for len(s.frames) > 0 {
		f := &s.frames[len(s.frames)-1]
		if f.next == f.end {
			s.pop()
			continue
		}
		if s.m.CheckpointDue() {
			s.m.Checkpoint(s.encode())
		}
		if s.m.Tick() {
			return outStopped
		}
		mv := s.arena[f.next]
		f.next++
		if s.step(mv) {
			return outSolved
		}
	}
	return outExhausted
}

// step clicks mv and opens its frame unless the new state is won or known
// dead. It reports a win.
func (s *search) step(mv int32) bool {
	b := s.b
	b.apply(mv)
	s.path = append(s.path, mv)
	if c := b.cleared(); c > s.bestCleared {
		s.bestCleared = c
		s.best = append(s.best[:0], s.path...)
	}
	if b.left == 0 && b.traySize == 0 {
		return true
	}
	if s.dead.contains(b.hash, b.removed) {
		s.ttHits++
		s.retract()
		return false
	}
	s.pushFrame()
	return false
}

// pop closes the top frame: every move from its state failed, so the state
// is dead (the root's too, which then ends the search).
func (s *search) pop() {
	top := s.frames[len(s.frames)-1]
	s.frames = s.frames[:len(s.frames)-1]
	s.arena = s.arena[:top.start]
	if len(s.frames) == 0 {
		return
	}
	s.dead.add(s.b.hash, s.b.removed)
	s.retract()
}

// retract undoes the last click of the path.
func (s *search) retract() {
	last := s.path[len(s.path)-1]
	s.path = s.path[:len(s.path)-1]
	s.b.undo(last)
}
