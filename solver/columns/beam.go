package columns

import (
	"cmp"
	"slices"

	"github.com/puzzled/puzzled/solver"
)

// beam is the beam search: per piece it expands every kept position by
// every distinct move, drops duplicate positions (same board hash, keeping
// the best evaluation) and keeps the best `width` by evaluation.
type beam struct {
	l     *Level
	g     *geom
	m     *solver.Meter
	width int
	moves [][]uint8
	ev    evaluator

	idx  int      // next piece to place
	cur  []bnode  // positions after idx pieces, best first
	hist [][]step // hist[i][j]: parent and move of cur node j after piece i

	best     int64
	bestLine []uint8
	found    bool
	goalLine []uint8

	next  []bnode
	cands []bcand
	seen  seenSet
}

type bnode struct {
	b     board
	score int64
	t     target
}

type step struct {
	parent int32
	move   uint8
}

type bcand struct {
	eval   int64
	hash   uint64
	parent int32
	move   uint8
}

func newBeam(l *Level, m *solver.Meter, width int, ev evaluator) *beam {
	bm := &beam{
		l: l, g: &l.geom, m: m, width: width,
		moves: moveLists(l),
		ev:    ev,
		seen:  newSeenSet(width),
	}
	bm.cur = []bnode{{b: l.start, t: l.initialTarget()}}
	return bm
}

// run places pieces until the goal is reached, the beam dies, the pieces
// run out or the meter stops it. It reports whether it was stopped; save
// writes the checkpoints.
func (bm *beam) run(save func()) bool {
	n := len(bm.l.pieces)
	for bm.idx < n && len(bm.cur) > 0 {
		if bm.m.CheckpointDue() {
			save()
		}
		if bm.expand() {
			save()
			return true
		}
		if bm.found {
			return false
		}
	}
	if bm.idx == n && len(bm.cur) > 0 && bm.l.Goal.Type == GoalSurvive {
		j := 0
		for k := range bm.cur {
			if bm.cur[k].score > bm.cur[j].score {
				j = k
			}
		}
		bm.found = true
		bm.goalLine = bm.line(n, j)
	}
	return false
}

// expand places piece idx on every kept position. It reports whether the
// meter stopped it; the beam is then unchanged.
func (bm *beam) expand() bool {
	i := bm.idx
	bm.cands = bm.cands[:0]
	var scratch bnode
	goalParent, goalMove, goalScore := -1, uint8(0), int64(-1)
	for p := range bm.cur {
		for _, mv := range bm.moves[i] {
			if bm.m.Tick() {
				return true
			}
			if !bm.play(&scratch, &bm.cur[p], i, mv) {
				continue
			}
			if scratch.score > bm.best {
				bm.best = scratch.score
				bm.bestLine = append(bm.line(i, p), mv)
			}
			if bm.l.Goal.Type != GoalSurvive && bm.l.goalReached(&scratch.b, scratch.score, scratch.t, i+1) {
				if scratch.score > goalScore {
					goalParent, goalMove, goalScore = p, mv, scratch.score
				}
				continue
			}
			bm.cands = append(bm.cands, bcand{
				eval:   bm.ev.eval(&scratch.b, scratch.score, scratch.t, len(bm.l.pieces)-i-1),
				hash:   bm.g.hash(&scratch.b, scratch.t),
				parent: int32(p), move: mv,
			})
		}
	}
	if goalParent >= 0 {
		bm.found = true
		bm.goalLine = append(bm.line(i, goalParent), goalMove)
		return false
	}
	bm.sortCands()
	if len(bm.cands) > 1<<14 && bm.m.Stopped() {
		// Wide rounds: the sort takes a while without ticks.
		return true
	}
	bm.keep()
	return false
}

// play simulates move mv of piece i from parent into dst; false on a
// top-out.
func (bm *beam) play(dst, parent *bnode, i int, mv uint8) bool {
	bm.g.copyFrom(&dst.b, &parent.b)
	dst.t = parent.t
	gain, ok := bm.g.place(&dst.b, int(mv)/3, int(mv)%3, &bm.l.pieces[i], &dst.t)
	dst.score = parent.score + int64(gain)
	return ok
}

// sortCands orders the candidates best first, ties by parent and move.
func (bm *beam) sortCands() {
	slices.SortFunc(bm.cands, func(a, b bcand) int {
		if c := cmp.Compare(b.eval, a.eval); c != 0 {
			return c
		}
		if c := cmp.Compare(a.parent, b.parent); c != 0 {
			return c
		}
		return cmp.Compare(a.move, b.move)
	})
}

// keep keeps the best distinct sorted candidates and makes them the new
// beam.
func (bm *beam) keep() {
	bm.seen.reset()
	bm.next = bm.next[:0]
	hist := make([]step, 0, min(bm.width, len(bm.cands)))
	for _, c := range bm.cands {
		if len(bm.next) == bm.width {
			break
		}
		if !bm.seen.add(c.hash) {
			continue
		}
		bm.next = append(bm.next, bnode{})
		bm.play(&bm.next[len(bm.next)-1], &bm.cur[c.parent], bm.idx, c.move)
		hist = append(hist, step{parent: c.parent, move: c.move})
	}
	bm.cur, bm.next = bm.next, bm.cur
	bm.hist = append(bm.hist, hist)
	bm.idx++
}

// line is the plan that leads to node j after i pieces.
func (bm *beam) line(i, j int) []uint8 {
	out := make([]uint8, i, i+1)
	for d := i - 1; d >= 0; d-- {
		s := bm.hist[d][j]
		out[d] = s.move
		j = int(s.parent)
	}
	return out
}

// seenSet is an open-addressing set of hashes, cleared by generation.
type seenSet struct {
	keys []uint64
	gen  []uint32
	cur  uint32
	mask uint64
}

func newSeenSet(width int) seenSet {
	n := 16
	for n < 4*width {
		n <<= 1
	}
	return seenSet{keys: make([]uint64, n), gen: make([]uint32, n), mask: uint64(n - 1)}
}

func (s *seenSet) reset() { s.cur++ }

// add inserts h and reports whether it was new.
func (s *seenSet) add(h uint64) bool {
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		if s.gen[i] != s.cur {
			s.gen[i], s.keys[i] = s.cur, h
			return true
		}
		if s.keys[i] == h {
			return false
		}
	}
}
