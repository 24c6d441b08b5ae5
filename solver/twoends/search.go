package twoends

import (
	"slices"

	"github.com/puzzled/puzzled/solver"
)

// Phases of a solve, in order.
const (
	phaseValue byte = iota // scanning values into the reduction stack
	phaseLine              // choosing the moves of the canonical line
	phaseDone
)

// maxCheckpointStack bounds the reduction stack written into a checkpoint
// of the value phase (8 bytes a value): a larger stack is not saved and a
// resume redoes the scan from the previous checkpoint.
const maxCheckpointStack = 1 << 16

// scanChunk is how many values the value phase scans between safe points.
const scanChunk = 4096

// state is everything a solve needs to continue; it is what a checkpoint
// holds.
type state struct {
	phase byte

	// phaseValue
	pos   int     // values scanned so far
	stack []int64 // reduction stack after values[:pos]

	// phaseLine and later
	value int64  // optimal value of the whole sequence
	i, j  int    // remaining interval values[i..j]
	cur   int64  // optimal value (mover − opponent) of values[i..j]
	line  []byte // moves chosen so far
}

// search runs one solve of one level.
type search struct {
	a []int64
	m *solver.Meter
	state
}

// scanValue runs the value phase to its end; false if the meter stopped it.
func (s *search) scanValue() bool {
	for s.phase == phaseValue {
		end := min(s.pos+scanChunk, len(s.a))
		st := slices.Grow(s.stack, end-s.pos)
		k := len(st)
		st = st[:cap(st)]
		for ; s.pos < end; s.pos++ {
			if s.m.Tick() {
				s.stack = st[:k]
				return false
			}
			k = push(st, k, s.a[s.pos])
		}
		s.stack = st[:k]
		if s.pos == len(s.a) {
			s.value = valleyValue(s.stack)
			s.stack = nil
			s.phase = phaseLine
			s.i, s.j, s.cur = 0, len(s.a)-1, s.value
			if len(s.a) > LineLimit {
				s.phase = phaseDone
			}
		}
		s.maybeCheckpoint()
	}
	return true
}

// buildLine runs the line phase to its end; false if the meter stopped it.
// At [i, j] with value cur, L is optimal iff a[i] − f(i+1, j) = cur;
// otherwise R is, and f(i, j−1) = a[j] − cur.
func (s *search) buildLine() bool {
	if s.phase != phaseLine {
		return true
	}
	o := newLineOracle(s.a)
	for s.phase == phaseLine {
		if s.m.Tick() {
			return false
		}
		i, j := s.i, s.j
		if i == j {
			s.line = append(s.line, 'L')
			s.phase = phaseDone
			break
		}
		if o.valley(i, j) {
			// f(i+1, j) = a[i] − cur when L is optimal, as on any line.
			if s.a[i] >= s.a[j] {
				s.line = append(s.line, 'L')
				s.i, s.cur = i+1, s.a[i]-s.cur
			} else {
				s.line = append(s.line, 'R')
				s.j, s.cur = j-1, s.a[j]-s.cur
			}
			s.maybeCheckpoint()
			continue
		}
		lastR := len(s.line) > 0 && s.line[len(s.line)-1] == 'R'
		if rest := o.restOfL(i, j, lastR); s.a[i]-rest == s.cur {
			s.line = append(s.line, 'L')
			s.i, s.cur = i+1, rest
		} else {
			s.line = append(s.line, 'R')
			s.j, s.cur = j-1, s.a[j]-s.cur
		}
		s.maybeCheckpoint()
	}
	return true
}

func (s *search) maybeCheckpoint() {
	if s.m.CheckpointDue() {
		s.checkpoint()
	}
}

// checkpoint hands the state to the meter unless it is too large to save.
func (s *search) checkpoint() {
	if s.phase == phaseValue && len(s.stack) > maxCheckpointStack {
		return
	}
	s.m.Checkpoint(s.encode())
}
