package sheep

import (
	"math"
	"slices"
)

// Beam search looks for a winning line the depth-first passes miss. On
// deals of one broad mound (L255w) the winning line of a solvable deal
// leaves the move order's first choice at dozens of clicks (from the 20th
// on), so neither the plain pass nor restarts, whose noise only reorders
// near-ties, reach it within seconds. A beam keeps the best `width`
// states of each click depth by a static evaluation (beamEval) and
// expands all of them, so a line whose early clicks look worse to the
// move order survives as long as its state looks good.
//
// The beam never proves anything: it only returns a line, and a line is a
// win only when it clears every tile (the result's plan is replayed by the
// simulator, finish and Verify). So it cannot make a verdict unsound; when
// it finds nothing, the passes go on as before.

// beamRun is one beam of a schedule: its width, the weight of dug-out
// tiles in its evaluation (beamEval), the least share of the tiles
// (percent) that an earlier beam's best state must have cleared for it to
// run at all, and perParent: when > 0, a layer keeps at most that many
// children of any one state of the layer before (capKids), 0 for no cap.
// noise > 0 adds to each state's score a bonus in [0, noise) drawn from a
// hash of the state and seed: the beam breaks near-ties its own way and
// follows other lines than a beam without it, while staying a function of
// the level.
type beamRun struct {
	width     int
	dig       int64
	near      int
	perParent int
	noise     int64
	seed      uint64
	// late defers the beam to the unlimited pass (schedule.lateBeams)
	// even when its gate is met; without lateBeams it runs in the beam
	// phase like the others.
	late bool
	// reach, with an endgame table, adds to a state's score reach times
	// the log2 of how many of the table's states are still within reach
	// of it (reachScore): how many ways to end the game its board still
	// holds. Without a table it does nothing.
	reach int64
}

// reachScore is a beam state's bonus for the n endgame states within its
// reach (n ≥ 1: a state with none is dropped), weight per doubling, in
// sixteenths of one.
func reachScore(weight int64, n int) int64 {
	return weight * int64(16*math.Log2(float64(n))) / 16
}

// defaultBeams, measured one beam at a time on deals 0–59 of L255w (where
// 128 restarts and the exact pass win 42 within 10 s): a beam of 50 with
// dig weight 100 wins 41 (65–110k nodes each, about 50 ms); one of 500
// wins 54 (0.5–1M nodes, about 0.4 s each), all but deals 21, 22, 29,
// 46, 49 and 57. Of those, a beam of 2000 with dig 200 wins 21, 22 and 57
// (~3M nodes; 29 not, 46 and 49 not tried), one of 4000 with dig 200 wins
// 21 and 29 (~6M nodes). In the schedule the beam of 50 wins 22, 29 and
// 49, the beam of 2000 the other three.
// On the one-tower layout L255, whose deals are unsolvable, the beams of
// 500, 2000 and 4000 die out after 0.4–2.9M nodes together (deals 0–7).
//
// The wide beams cost most on unsolvable deals, and there they are
// hopeless: on L255 deals 0–19 the beam of 500 dies out with its best
// state at 18–195 of 255 tiles cleared (most under 135), while on the six
// L255w deals it does not win its best state has cleared 222–228. So the
// wide beams run only after a narrower one got within 80 % of a win.
//
// sheep/7 caps the beams of 4000 and 8000 at two children of any one
// state of the layer before (perParent; capKids). Uncapped, a wide beam
// on the hard L255w deals fills with the children of a few states and
// dies out like a narrower one: sheep/6's schedule, whose beam of 4000
// is uncapped, leaves deals 126, 459, 549, 721, 726, 821 and 936 unknown
// at 10 s (15–20M nodes; 20M nodes do not win them either). Capped, the
// beam of 4000 alone wins six of them (5.1–5.6M nodes) and dies out on
// 821 after 4.9M, which the capped beam of 8000 wins (9.9M); in the
// schedule the seven take 7.8–18.0M nodes (3.8–9.6 s). On L255w deals
// 0–199 both schedules take the same nodes on the 197 deals sheep/6
// solves (a beam of at most 2000 or pass 0 wins them) and sheep/7 adds
// deal 126; L255 deals 0–4 take the same nodes (the gate keeps the wide
// beams off).
//
// sheep/8 adds diversity rather than width: of the 18 L255w deals sheep/7
// left unknown in 1,000, a beam of 16000 (capped at 2, ~20M nodes) wins
// 3 and beams of 4000 with other settings win 5 between them (dig 400
// with noise 300: 188, 222, 270 and 338; one child per parent: 756); no
// setting tried wins the other 13. So the capped beam of 4000 with dig
// 400 and noise comes first (it also wins 459, 549 and 936 of the seven
// above), then sheep/7's, then the one with one child per parent. The
// beam of 8000, 10M nodes for deal 821 alone, is late: it runs after the
// unlimited pass has had lateBeams nodes, since that pass wins some deals
// soon (deal 287 after 0.93M of its nodes, which the beams before it had
// pushed past 10 s). docs/sheep.md has the figures.
//
// sheep/10 adds three beams of 1000, capped at two children per parent,
// with dig weights 150, 1200 and 30, before the beam of 2000. On the
// game's layout capture-264 the beams of 2000 and 4000 were where the
// slow deals were won (2000: about 4M nodes, 4000: about 7M each there),
// and where the unknown ones were lost: of the 18 deals of 0–199 that
// sheep/9 solved after more than 2.5M nodes, one of these three wins 17
// alone within about 2M nodes each. Of the 43 deals sheep/9 left unknown
// at 10 s, the schedule with them wins 7 within 14M nodes (sheep/9's: 4;
// deal 11, unknown after 60 s and 108M nodes, is won by a beam of 1000
// with dig 300 or 600 in 1.8M), and of the 45 of the generated layout
// P20, 11 (sheep/9's: none). What they add is diversity, not width:
// which dig weight wins differs from deal to deal (noise 300–20000 on
// one dig weight won 1 of 36 deals the three left). Like the beam of
// 2000 they are gated at 80 % and otherwise deferred (on the one-tower
// deals of L255 no beam comes near 80 %).
//
// sheep/15 adds two more beams of 1000 after them that weigh the endgame
// table's states within reach (beamRun.reach): with the own search's
// table they win 6 of the 26 capture-264 deals sheep/14 left unknown at
// 10 s (411, 570, 726, 789, 804, 915), each in about 2M nodes
// (docs/sheep.md, "Beams that aim at the table").
var defaultBeams = []beamRun{{width: 50, dig: 100}, {width: 500, dig: 100},
	{width: 1000, dig: 150, near: 80, perParent: 2},
	{width: 1000, dig: 1200, near: 80, perParent: 2},
	{width: 1000, dig: 30, near: 80, perParent: 2},
	{width: 1000, dig: 10, near: 80, perParent: 2, reach: 3000},
	{width: 1000, dig: 10, near: 80, perParent: 2, reach: 10000},
	{width: 2000, dig: 200, near: 80},
	{width: 4000, dig: 400, near: 80, perParent: 2, noise: 300, seed: 3},
	{width: 4000, dig: 200, near: 80, perParent: 2},
	{width: 4000, dig: 200, near: 80, perParent: 1},
	{width: 8000, dig: 200, near: 80, perParent: 2, late: true}}

// beamPhase runs the schedule's beams in order until one wins (line) or
// the meter stops (stopped), and the retrograde proof (retro.go) where the
// schedule puts it: when it proves the level unsolvable, s.retroLeft says
// so. A late beam, and one whose gate is not met
// (no earlier beam's state cleared near percent of the tiles), is
// deferred: s.deferred marks it for the unlimited pass (lateBeams). It
// is a pure function of the level and the schedule; it keeps no state in
// checkpoints, so a search resumed in pass 0 runs it again from the start.
func (s *search) beamPhase() (line []int32, stopped bool) {
	best := 0 // most tiles cleared by a state of an earlier beam
	s.deferred = 0
	defer func() { s.beamsCleared = best }()
	for k, br := range s.sched.beams {
		if k == s.sched.retro.afterBeams && s.sched.retro.nodes > 0 {
			switch s.retroPhase(s.sched.retro) {
			case retroProven: // s.retroLeft says where
				return nil, false
			case retroStopped:
				return nil, true
			}
		}
		gated := best*100 < br.near*len(s.b.l.tiles)
		if s.sched.tableFirst && s.end != nil && k > s.sched.retro.afterBeams {
			gated = true // see schedule.tableFirst
		}
		if s.sched.lateBeams > 0 && (gated || br.late) {
			s.deferred |= 1 << k
			continue
		}
		if gated {
			continue
		}
		var cleared int
		line, cleared, stopped = s.beamSearch(br)
		if line != nil || stopped {
			return line, stopped
		}
		best = max(best, cleared)
		if k == s.sched.retro.afterBeams && best*100 < s.sched.openingBelow*len(s.b.l.tiles) {
			for _, br := range s.sched.openingBeams {
				s.signals.openingRan = true
				if line, cleared, stopped = s.beamSearch(br); line != nil || stopped {
					s.signals.openingWon = line != nil
					return line, stopped
				}
				best = max(best, cleared)
			}
		}
		if k == s.sched.retro.afterBeams && s.sched.retroDeep.nodes > 0 {
			// The deep table replaces the small one (schedule.retroDeep).
			s.signals.deepRan = true
			switch s.retroPhase(s.sched.retroDeep) {
			case retroProven:
				return nil, false
			case retroStopped:
				return nil, true
			}
			again := s.sched.deepBeams
			if again == nil {
				again = []beamRun{br}
			}
			if s.sched.deepLate > 0 && len(again) > 1 {
				again, s.deepLeft = again[:1], again[1:]
			}
			for _, br := range again {
				if line, cleared, stopped = s.beamSearch(br); line != nil || stopped {
					s.signals.deepWon = line != nil
					return line, stopped
				}
				best = max(best, cleared)
			}
		}
	}
	return nil, false
}

// lateBeamPhase runs the deferred beams (late ones and gated ones) in
// order, from the start of the level, until one wins (line) or the meter
// stops (stopped). The unlimited pass calls it at schedule.lateBeams
// nodes, and again at lateWide for the wide ones when that is set
// (lateAt): the beams use boards of their own, so the pass goes on where it
// was when none wins. A checkpoint taken meanwhile saves the pass with
// s.deferred and its node count still at lateBeams, so a resumed search
// runs them again from the start.
//
// They have a gate of their own: after the first, a deferred beam wider
// than lateFree runs only when an earlier one cleared lateNear percent of
// the tiles. On the
// one-tower layout L255 all five deferred beams cost 5.5–9M nodes on the
// deals whose proof needs more than lateBeams, while the first, the beam
// of 2000, stops at 18–192 of 255 tiles there (deals 0–4, 13, 50 and
// 59–106); on L255w deal 188 it reaches 195, and the noisy beam of 4000
// after it wins.
func (s *search) lateBeamPhase() (line []int32, stopped bool) {
	s.signals.lateRun = true
	best, ran := 0, false
	var now uint64 // the deferred beams due at this node count
	for k, br := range s.sched.beams {
		if s.sched.lateAt(br) == s.passNodes {
			now |= 1 << k
		}
	}
	for k, br := range s.sched.beams {
		short := ran && best*100 < lateNear*len(s.b.l.tiles)
		if s.deferred&now&(1<<k) == 0 || short && br.width > lateFree {
			continue
		}
		if short {
			s.signals.lateFree++
		}
		if br.width > lateFree {
			s.signals.wideAt = s.passNodes
		}
		var cleared int
		if line, cleared, stopped = s.beamSearch(br); line != nil || stopped {
			return line, stopped
		}
		best, ran = max(best, cleared), true
	}
	s.deferred &^= now
	return nil, false
}

// deepLatePhase runs the deep table's beams that the beam phase left for
// the unlimited pass (schedule.deepLate), from the start of the level,
// until one wins (line) or the meter stops (stopped); like the deferred
// beams, with boards of their own, so the pass goes on where it was when
// none wins.
func (s *search) deepLatePhase() (line []int32, stopped bool) {
	left := s.deepLeft
	s.deepLeft = nil
	for _, br := range left {
		if line, _, stopped = s.beamSearch(br); line != nil || stopped {
			s.signals.deepWon = line != nil
			s.signals.deepLateWon = line != nil
			return line, stopped
		}
	}
	return nil, false
}

// lateAt is the node count of the unlimited pass at which br runs if the
// beam phase deferred it (lateBeams, lateWide).
func (sc schedule) lateAt(br beamRun) int64 {
	if sc.lateWide > 0 && br.width > lateFree {
		return sc.lateWide
	}
	return sc.lateBeams
}

// lateNear is the gate of the deferred beams after the first (percent of
// the tiles cleared by an earlier deferred beam): near a win, as the beam
// phase asks 80 % of narrower beams. At 60 % the L255 deals 86, 90, 91
// and 97, whose beam of 2000 clears 156–180 tiles, paid all deferred
// beams (8–9M nodes more) and deal 91 went unknown at 10 s; deal 59
// (192, 75.3 %) still pays them.
const lateNear = 75

// lateFree: deferred beams no wider than this run whatever the earlier
// ones cleared (sheep/10). The beams of 1000 differ in their dig weight,
// and which one wins differs from deal to deal: on P20 deal 487 the
// beams of 50 to 1000 with dig 100–1200 die out after clearing 12–30 of
// 270 tiles (they dig into the blind piles of 20 and fill the tray), so
// all three beams of 1000 are deferred, and the one with dig 30, which
// the gate of lateNear kept out after the first, wins it in 1.4M nodes.
// A beam that dies out that early costs little.
const lateFree = 1000

// takeLine makes line, a win from the start, the search's path.
func (s *search) takeLine(line []int32) {
	for len(s.path) > 0 {
		s.retract()
	}
	s.frames, s.arena, s.sleep, s.pending = s.frames[:0], s.arena[:0], s.sleep[:0], s.pending[:0]
	for _, mv := range line {
		s.b.apply(mv)
		s.path = append(s.path, mv)
	}
}

// beamNode is one state of a beam layer: the click that reached it from
// its parent in the previous layer.
type beamNode struct {
	parent int32 // index in the previous layer's lineage
	tile   int32
	score  int64
	hash   uint64
	// within is the number of the endgame table's states within reach of
	// the state (reach.kept), where the beam weighs them (beamRun.reach).
	within int
}

// beamSearch runs one beam of the given width from the start of l. It
// returns the winning line, or nil when the beam died out or the meter
// stopped (stopped true), and the most tiles a state of the beam cleared.
// Every evaluated child counts as a node.
func (s *search) beamSearch(br beamRun) (line []int32, cleared int, stopped bool) {
	l, m, width := s.b.l, s.m, br.width
	cur := []*board{newBoard(l)}
	// lineage[d] holds the nodes of layer d+1; parent indexes layer d.
	var lineage [][]beamNode
	var spare []*board
	var arena []int32
	var scratch []move
	var kids []beamNode
	var seen hashSet
	// With an endgame table, rows[i] is the set of W_J states within
	// reach of cur[i] (reach); a child with none is dead.
	e := s.end
	var rows, nextRows []reachRow
	var held, nextHeld []*rowWords // held[i]: the words rows[i] lies in
	var free []*rowWords
	rootWithin := 0
	if e != nil && !s.sched.noReach {
		rows = make([]reachRow, 1)
		rootWithin = e.layers[e.depth()].len()
		held = append(held, takeWords(&free, e.reach.words))
		rows[0].own = held[0].w
		e.reach.full(&rows[0], rootWithin)
	}
	for len(cur) > 0 {
		kids = kids[:0]
		seen.clear()
		for pi, b := range cur {
			arena, scratch = b.genMoves(arena[:0], scratch, 0, nil)
			within := 0 // the endgame states within reach of b, for br.reach
			if rows != nil && br.reach > 0 {
				within = rootWithin
				if len(lineage) > 0 {
					within = lineage[len(lineage)-1][pi].within
				}
			}
			for _, mv := range arena {
				if m.CheckpointDue() {
					m.Checkpoint(s.root().encode())
				}
				if m.Tick() {
					return nil, cleared, true
				}
				// A state reached twice in a layer (clicks in another
				// order) is kept once. States are told apart by their
				// 64-bit hash: a collision only drops a candidate,
				// which the beam may do anyway.
				h := b.hash ^ b.zob[mv]
				if !seen.add(h) {
					continue
				}
				b.apply(mv)
				if b.left == 0 && b.traySize == 0 {
					line = beamLine(lineage, int32(pi), mv)
					b.undo(mv)
					return line, len(l.tiles), false
				}
				// At the endgame table's depth the table decides:
				// a win, or a dead state the beam drops.
				if e != nil && b.left == e.depth() {
					if e.holds(b) {
						s.signals.endgameWon = true
						return e.finish(b, beamLine(lineage, int32(pi), mv)), len(l.tiles), false
					}
					s.signals.endgameCut++
					b.undo(mv)
					continue
				}
				if rows != nil && !e.reach.alive(&rows[pi], mv) {
					s.signals.reachCut++
					b.undo(mv)
					continue
				}
				if b.l.slots-b.traySize < 3 || b.tripleWithin() {
					score := b.beamEval(br.dig)
					if br.noise > 0 {
						score += int64(mix64(h^(0x9E3779B97F4A7C15*(br.seed+1))) % uint64(br.noise))
					}
					if within > 0 {
						// A bound: the count is made only for the
						// children that may be kept (count, below).
						score += reachScore(br.reach, within)
					}
					kids = append(kids, beamNode{parent: int32(pi), tile: mv, score: score, hash: h})
				}
				b.undo(mv)
			}
		}
		// A child's count of the table's states within reach (beamRun.reach)
		// costs a pass over the words of its parent's row that its click
		// changes; a child is scored with its parent's count (an upper
		// bound) until count makes it exact.
		var count func([]beamNode)
		if rows != nil && br.reach > 0 {
			count = func(ks []beamNode) {
				for i := range ks {
					if k := &ks[i]; k.within == 0 {
						up := rootWithin
						if len(lineage) > 0 {
							up = lineage[len(lineage)-1][k.parent].within
						}
						k.within = e.reach.kept(&rows[k.parent], k.tile, up)
						k.score += reachScore(br.reach, k.within) - reachScore(br.reach, up)
					}
				}
			}
		}
		// A layer that fits is kept whole, in the order it was
		// generated (capKids would keep it whole too).
		if len(kids) > width {
			var dropped int
			kids, dropped = bestKids(kids, width, br.perParent, count)
			s.signals.capped += int64(dropped)
		} else if count != nil {
			count(kids)
		}
		next := make([]*board, 0, len(kids))
		for _, kd := range kids {
			var nb *board
			if n := len(spare); n > 0 {
				nb, spare = spare[n-1], spare[:n-1]
			} else {
				nb = cur[0].sibling()
			}
			nb.copyFrom(cur[kd.parent])
			nb.apply(kd.tile)
			next = append(next, nb)
		}
		if rows != nil {
			// Most clicks change no word of the row (reach): the child's
			// row is then its parent's words, shared rather than copied
			// (on a deep table a row is some 10–60 KB).
			nextRows = slices.Grow(nextRows[:0], len(kids))[:len(kids)]
			nextHeld = nextHeld[:0]
			for i, kd := range kids {
				src, h := &rows[kd.parent], held[kd.parent]
				if lo, hi := e.reach.changed(src, kd.tile); lo < hi {
					h = takeWords(&free, e.reach.words)
					nextRows[i].own = h.w
				} else {
					h.refs++ // click shares src's words
				}
				e.reach.click(&nextRows[i], src, kd.tile, true)
				nextHeld = append(nextHeld, h)
			}
			for _, h := range held {
				if h.refs--; h.refs == 0 {
					free = append(free, h)
				}
			}
			rows, nextRows = nextRows, rows
			held, nextHeld = nextHeld, held
		}
		if s.checkRows && rows != nil {
			s.signals.rowsWrong += s.wrongRows(lineage, kids, rows, br.reach > 0)
		}
		lineage = append(lineage, slices.Clone(kids))
		spare = append(spare, cur...)
		cur = next
		cleared = max(cleared, s.beamBest(lineage, cur))
	}
	return nil, cleared, false
}

// wrongRows counts the rows of a beam's new layer (kids, their rows) that
// differ from the row built afresh along the child's line from the start,
// and, with withins, the children whose within is not their row's size:
// tests set search.checkRows to check that the rows shared between
// layers (rowWords) are not overwritten while in use.
func (s *search) wrongRows(lineage [][]beamNode, kids []beamNode, rows []reachRow, withins bool) int64 {
	e := s.end
	var wrong int64
	var a, b reachRow
	for i, kd := range kids {
		e.reach.full(&a, e.layers[e.depth()].len())
		for _, t := range beamLine(lineage, kd.parent, kd.tile) {
			e.reach.click(&b, &a, t, false)
			a, b = b, a
		}
		got, want := rows[i], a
		if got.lo != want.lo || got.hi != want.hi || !slices.Equal(got.bits[got.lo:got.hi], want.bits[want.lo:want.hi]) ||
			withins && kd.within != got.size() {
			wrong++
		}
	}
	return wrong
}

// rowWords are the words of reach rows of a beam's layers, with how many
// rows use them: a child whose click changed nothing shares its parent's.
// Words no row uses go back to the beam's free list, to be taken for the
// next layer's rows.
type rowWords struct {
	w    []uint64
	refs int
}

// takeWords takes words for one row from free, or makes them, held by one
// row.
func takeWords(free *[]*rowWords, words int) *rowWords {
	if n := len(*free); n > 0 {
		h := (*free)[n-1]
		*free = (*free)[:n-1]
		h.refs = 1
		return h
	}
	return &rowWords{w: make([]uint64, words), refs: 1}
}

// sortKids sorts a layer's children best first (kidOrder).
func sortKids(kids []beamNode) { slices.SortFunc(kids, kidOrder) }

// kidOrder orders a layer's children best first: score descending, ties
// by hash (halved to fit an int), so the order is a function of the
// states, not of the sort.
func kidOrder(x, y beamNode) int {
	switch {
	case x.score > y.score:
		return -1
	case x.score < y.score:
		return 1
	}
	return int(x.hash>>1) - int(y.hash>>1)
}

// bestKids is capKids of kids sorted by sortKids, sorting only as far as
// the walk goes: capKids keeps width children from the first few
// thousand of a layer of some 30,000, and sorting the whole layer was a
// sixth of both cores' time on the hard capture-264 deals. It moves the
// best 4×width children to the front (selectKids), sorts them, and sorts
// the rest too only when the walk would go past them (a cap that drops
// most children). The children kept, their order and the count dropped
// are capKids' own (TestBestKids).
//
// With count, a child's score may be an upper bound until count makes it
// exact (a beam that weighs the table's states within reach: the count
// costs more than the rest of a child's score). bestKids counts the
// best front children by their bounds; the worst of them, exact, is the
// least score a child of the front can have, and every other child whose
// bound reaches it is counted too. A child left uncounted has a bound
// below it, so an exact score below it: the front is that of the exact
// scores, and so is everything kept (TestBestKidsCounted).
func bestKids(kids []beamNode, width, perParent int, count func([]beamNode)) (kept []beamNode, dropped int) {
	front := len(kids)
	if perParent > 0 {
		front = min(front, 4*width)
	} else {
		front = min(front, width)
	}
	if count != nil {
		selectKids(kids, front)
		count(kids[:front])
		if front < len(kids) {
			worst := kids[0]
			for _, k := range kids[1:front] {
				if kidOrder(k, worst) > 0 {
					worst = k
				}
			}
			for i := front; i < len(kids); i++ {
				if kids[i].score >= worst.score {
					count(kids[i : i+1])
				}
			}
		}
	}
	selectKids(kids, front)
	sortKids(kids[:front])
	if front < len(kids) {
		// The walk within the front, on a copy (capKids keeps children
		// in place): when it keeps width, the rest is never reached.
		if kept, dropped := capKids(slices.Clone(kids[:front]), width, perParent); len(kept) == width {
			return kids[:copy(kids, kept)], dropped
		}
		if count != nil {
			count(kids[front:])
		}
		sortKids(kids[front:]) // all of them rank below kids[:front]
	}
	return capKids(kids, width, perParent)
}

// selectKids reorders kids so that kids[:k] are the k first of them in
// kidOrder (in no particular order): Hoare's selection, each round
// partitioning around the median of three and going on in the part that
// holds position k, sorting once a part is small or after too many rounds
// (so a bad run of pivots costs a sort, never quadratic time).
func selectKids(kids []beamNode, k int) {
	lo, hi := 0, len(kids)
	if k <= 0 || k >= hi {
		return
	}
	for round := 0; hi-lo > 32 && round < 64; round++ {
		pivot := median3(kids[lo], kids[lo+(hi-lo)/2], kids[hi-1])
		i, j := lo, hi-1
		for i <= j {
			for kidOrder(kids[i], pivot) < 0 {
				i++
			}
			for kidOrder(kids[j], pivot) > 0 {
				j--
			}
			if i <= j {
				kids[i], kids[j] = kids[j], kids[i]
				i++
				j--
			}
		}
		// kids[lo:j+1] rank no later than pivot, kids[i:hi] no earlier,
		// and those between equal it.
		switch {
		case k < j+1:
			hi = j + 1
		case k > i:
			lo = i
		default:
			return
		}
	}
	slices.SortFunc(kids[lo:hi], kidOrder)
}

// median3 is the middle one of a, b and c in kidOrder.
func median3(a, b, c beamNode) beamNode {
	switch {
	case (kidOrder(a, b) < 0) == (kidOrder(b, c) < 0):
		return b
	case (kidOrder(b, a) < 0) == (kidOrder(a, c) < 0):
		return a
	}
	return c
}

// capKids keeps the layer's children from kids, sorted by sortKids. A
// layer of at most width children is kept whole: the cap is for a layer
// whose children compete for its places, and capping one that fits only
// throws states away (the first layer of a beam would keep two of the
// start's clicks; capping every layer, the schedule left L255w deals 549
// and 721 unknown at 10 s, 17M nodes, which it wins in 8.5M and 9.0M
// when only full layers are capped). Otherwise it walks
// them best first and keeps each unless its parent already has perParent
// kept children, until width are kept. perParent 0 means no cap: the
// first width, as before sheep/7. It returns the kept children (a prefix
// of kids' storage, in their order) and how many the cap dropped on the
// way.
//
// Children the cap dropped do not refill the layer when fewer than width
// are kept: the layer is then narrower, but every kept state has at most
// perParent-1 siblings, and each has children of its own, so the next
// layers fill up again. Refilling would put back the siblings of states
// already kept, the crowding the cap is there to stop. Measured, neither
// wins all: of the 23 L255w deals sheep/6 left unknown that docs/sheep.md
// lists, refilling wins 270 and 419 but not 721 (not even with 30M
// nodes), this version 721 but not 270 and 419 (not with 30M either);
// both the same on deals 0–199. This one is kept: it is what the
// figures were first measured with, and it spends fewer nodes per beam
// (but for deal 821: 18.0M against 8.5M).
func capKids(kids []beamNode, width, perParent int) (kept []beamNode, dropped int) {
	if perParent <= 0 || len(kids) <= width {
		return kids[:min(width, len(kids))], 0
	}
	n := 0 // parents are indexes into the previous layer
	for _, k := range kids {
		n = max(n, int(k.parent)+1)
	}
	per := make([]int32, n)
	kept = kids[:0]
	for _, k := range kids {
		if len(kept) == width {
			break
		}
		if int(per[k.parent]) >= perParent {
			dropped++
			continue
		}
		per[k.parent]++
		kept = append(kept, k) // kept is never ahead of the walk
	}
	return kept, dropped
}

// beamBest makes the line to the state of layer that cleared the most
// tiles the search's best partial line when it beats it (the line an
// unknown result carries; beam clicks never lose at once). It returns the
// most tiles a state of layer cleared.
func (s *search) beamBest(lineage [][]beamNode, layer []*board) int {
	at, most := -1, 0
	for k, b := range layer {
		c := b.cleared()
		most = max(most, c)
		if c > s.bestCleared {
			s.bestCleared, at = c, k
		}
	}
	if at < 0 {
		return most
	}
	last := lineage[len(lineage)-1][at]
	s.best = append(s.best[:0], beamLine(lineage[:len(lineage)-1], last.parent, last.tile)...)
	return most
}

// beamLine rebuilds the line ending with click last from the node parent
// of the last layer.
func beamLine(lineage [][]beamNode, parent int32, last int32) []int32 {
	line := make([]int32, len(lineage)+1)
	line[len(lineage)] = last
	for d := len(lineage) - 1; d >= 0; d-- {
		n := lineage[d][parent]
		line[d] = n.tile
		parent = n.parent
	}
	return line
}

// sibling is an empty board of b's level for copyFrom, sharing b's
// read-only keys and pressure scratch (the beam uses one board at a time):
// newBoard's would cost a sixth of a wide beam's time.
func (b *board) sibling() *board {
	return &board{l: b.l, zob: b.zob, press: b.press}
}

// copyFrom makes b the same state as o (same level), with empty undo
// stacks.
func (b *board) copyFrom(o *board) {
	b.cov = append(b.cov[:0], o.cov...)
	b.removed = append(b.removed[:0], o.removed...)
	b.hash = o.hash
	b.clk = append(b.clk[:0], o.clk...)
	b.clkBits = append(b.clkBits[:0], o.clkBits...)
	b.clkTyp = append(b.clkTyp[:0], o.clkTyp...)
	b.tray = append(b.tray[:0], o.tray...)
	b.traySize, b.left, b.depth, b.dug = o.traySize, o.left, o.depth, o.dug
	b.undoP, b.undoK = b.undoP[:0], b.undoK[:0]
}

// beamEval rates a state for the beam; all states of a layer have made
// the same number of clicks, so only their shape differs. In order of
// weight: tiles in the tray (each costs a slot until its triple is done),
// tiles dug out (dig per tile that lay transitively beneath each clicked
// tile: the game is lost in tall stacks whose order is forced, the same
// reason the move order digs first), clickable tiles (options), and tray
// tiles whose partners are clickable (cheap to clear). Without the dig
// term a beam of 500 wins none of L255w deals 0–19 (it dies out after
// 110–230 clicks); with dig 10, 30, 100 it wins 17, 18, 20 of them.
func (b *board) beamEval(dig int64) int64 {
	s := -1000 * int64(b.traySize)
	s += 40 * int64(len(b.clk))
	for t, c := range b.tray {
		if c == 0 {
			continue
		}
		switch have := int64(c) + int64(b.clkTyp[t]); {
		case have >= 3:
			s += 300
		case have == 2 && c == 1:
			s += 100
		}
	}
	return s + dig*b.dug
}

// hashSet is a set of 64-bit state hashes: a beam's layer asks it once
// per child whether the state was reached already. Open addressing with
// linear probing, indexed by the hash's low bits (Zobrist hashes are
// uniform); 0 marks a free slot, so the hash 0 is kept aside. A map took
// a tenth of a beam's time.
type hashSet struct {
	slots []uint64 // a power of two long, at most half full
	n     int
	zero  bool
}

// add puts h in the set and reports whether it was not in it.
func (s *hashSet) add(h uint64) bool {
	if h == 0 {
		had := s.zero
		s.zero = true
		return !had
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

// grow doubles the slots (1,024 at first) and puts the hashes back.
func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
	s.n = 0
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}

// clear empties the set, keeping its slots.
func (s *hashSet) clear() {
	clear(s.slots)
	s.n, s.zero = 0, false
}
