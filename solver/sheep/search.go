package sheep

import (
	"compress/flate"
	"slices"

	"github.com/puzzled/puzzled/solver"
)

// The search runs in passes, each a depth-first search from the start
// with a fresh transposition table. Deep levels are lost or won by early
// choices, and a single DFS that took a bad one spends its budget proving
// the huge subtree below it dead, so on large levels (scheduleFor):
//
//   - pass 0 uses the plain move order, for at most first nodes;
//   - passes 1..restarts reorder the moves with a random bonus seeded by
//     the pass (see board.score), for at most restart nodes each;
//   - the last pass uses the plain order again and has no limit, so the
//     search stays exact: it ends solved or exhausted, or runs out of
//     budget.
//
// Any pass that finds a line wins; any pass that exhausts the root proves
// the level unsolvable, whatever its move order (every move of every state
// was tried or soundly pruned). A pass's limit counts its own nodes, and
// its table only holds states it proved dead itself, so a limited pass is
// a pure function of the level, the schedule and the pass number;
// checkpoints of limited passes save the whole table (at most one entry
// per node) to keep that true across a resume.
type schedule struct {
	first, restart int64 // node limits of pass 0 (0: none) and of each restart
	restarts       int
	// proj runs projection proofs (project.go) when a limited pass 0
	// ends undecided, before the restarts; its zero value is sheep/2.
	proj projectionPlan
	// noPressure turns off the tray-pressure bound (pressure.go), as
	// sheep/2 and sheep/3 ran. Otherwise (sheep/4) the unlimited pass
	// prunes with it, and so do limited passes when pressureAll is set
	// (projection searches, whose only use is exhaustion). The limited
	// passes of large levels look for a win; there the bound cost more
	// time per node than it saved nodes (1.7–2.6x per node on L255w
	// restarts for the same nodes).
	noPressure, pressureAll bool
	// noSleep turns off sleep sets in the unlimited pass (sleep.go).
	noSleep bool
	// noReach turns off the cut above the endgame table's depth (reach
	// in endgame.go), as sheep/11 ran.
	noReach bool
	// newestDead makes the unlimited pass's checkpoints keep its newest
	// dead states rather than its costliest (encodeDead), as sheep/8 did
	// until payload version 8: BenchmarkResume's baseline.
	newestDead bool
	// retro runs the retrograde proof (retro.go) in the beam phase, before
	// beam retro.afterBeams; retroFar, a larger one, runs after the beams
	// when no line came near a win (restartNear), before the exact pass.
	// Their zero values are none.
	retro, retroFar retroPlan
	// retroDeep, when set, builds a deeper endgame table in place of
	// retro's once the beam that follows retro's table (at
	// retro.afterBeams) failed with it, and runs that beam again with the
	// deep one. A small table costs little and with it that beam decides
	// many deals within a second; a deep one costs seconds and decides
	// deals the small one does not. A portfolio's helper runs so
	// (helperRetroDeep).
	retroDeep retroPlan
	// openingBeams run right after beam retro.afterBeams, before the deep
	// table, when no beam so far cleared openingBelow percent of the
	// tiles: every line the narrow beams kept filled the tray in the
	// opening. Wide beams with a low dig weight carry more openings
	// through (docs/sheep.md, "Wide beams where the narrow ones die
	// early"). A portfolio's helper runs so.
	openingBeams []beamRun
	openingBelow int
	// farBeams run once the unlimited pass has counted farAt nodes, when
	// no line came near a win (restartNear) and no state of the beam
	// phase cleared openingBelow percent of the tiles
	// (search.beamsCleared): the own search's counterpart of
	// openingBeams. After the retrograde proofs, which decide the
	// one-tower deals whose beams die early too, and after farAt nodes
	// of the exact pass, which wins many other such deals within a
	// second (T33 deal 146, F12 166, L264 952: 0.15–0.5 s, and 3.7–6.2 s
	// with the beam of 8000 before the pass). The own search's farAt is
	// its lateBeams, and the far beams run first there: after the
	// deferred beams, which run wide where a narrow one nears a win, P20
	// deal 913 was lost.
	farBeams []beamRun
	farAt    int64
	// deepBeams, when set, run with the deep table in place of running
	// beam retro.afterBeams again (sheep/15: beams that weigh the table's
	// states within reach, beamRun.reach).
	deepBeams []beamRun
	// deepLate, when set, runs only the first of deepBeams before the
	// unlimited pass and the others once it has counted this many nodes
	// (search.deepLeft; sheep/16). Each beam with the deep table costs
	// 1.5–3 s of the helper's core, and the exact pass wins some deals
	// within its first 2M nodes that no beam wins.
	deepLate int64
	// beams run after the projections of a limited pass 0, before the
	// restarts (beam.go): each a beam search of its width and evaluation,
	// until one wins or dies out. Their zero value is sheep/2's: none.
	beams []beamRun
	// restartNear: the restarts run only when the best line of pass 0
	// and the beams cleared at least this share of the tiles (percent);
	// otherwise the exact pass follows the beams at once. The restarts
	// won no deal of L255w 0–119 or L264 0–29 with beams before them,
	// and on the unsolvable L255 deals, where the best line clears
	// 18–195 of 255 tiles (under 80 %), they were 0.26M nodes (12–17 %
	// of a deal) spent before the exact pass that proves them. The
	// decision is a function of the level, so a resume in pass 0 takes
	// it again and a checkpoint of a restart only exists where restarts
	// run.
	restartNear int
	// lateBeams: the unlimited pass runs the beams whose gate (near)
	// kept them out of the beam phase, and the late ones, once it has
	// counted this many nodes without a proof (0: gated beams never run,
	// late ones run in the beam phase). A gate keeps the wide
	// beams off the one-tower deals, where they are hopeless and the
	// exact pass proves most deals within 0.8–3.4M nodes; but on a few
	// L255w deals the narrow beams fall short of 80 % while a wide beam
	// wins (deals 188 and 338: the beams of 50 and 500 reach 192 and
	// 156 of 255 tiles; the beam of 2000 wins 338, the noisy beam of
	// 4000 wins 188), so the gate defers them instead of dropping them.
	// sheep/10 runs them after 1M nodes instead of 4M: since sheep/9 the
	// retrograde searches prove the one-tower deals before the exact
	// pass (L255 deals 0–49: the same nodes but for deal 41, proven by
	// the exact pass in 3.23M nodes instead of 2.63M), and the deals
	// that get here are the game's and broad mounds', where a deferred
	// beam, not the exact pass, wins: capture-264 deals 11, 67 and 693
	// (their narrow beams fall just short of 80 %) are won by a deferred
	// beam of 1000 after 5.8M, 4.2M and 8.0M nodes instead of 9.0M, 7.4M
	// and 11.2M, P20 deals 1 and 197 after 2.5M and 2.7M instead of 5.7M
	// and 5.9M.
	lateBeams int64
	// lateWide, when set, keeps the deferred beams wider than lateFree
	// back until the unlimited pass has counted this many nodes; those no
	// wider run at lateBeams (0: all at lateBeams).
	lateWide int64
	// tableMax caps the dead-state table's entries (0: tableBytes
	// decides); tests set it small to make the table evict.
	tableMax int
	// tableFirst defers every beam after the first one that follows the
	// retrograde search that built the endgame table (endgame.go) to the
	// unlimited pass, as the gate defers a beam (lateBeams): with the
	// table the exact pass, not a wide beam, is what wins deals of the
	// game's layouts that the beams leave. A portfolio's helper runs so.
	tableFirst bool
	// exactOrder seeds the move order of the unlimited pass (board.score;
	// 0: the plain order). A portfolio's helper (portfolio.go) takes
	// another order than the own search's, so that the two exact passes
	// differ; any order keeps the pass exhaustive.
	exactOrder int
	// exactRuns, when set, makes the unlimited pass go back to its root
	// now and then, each time in a new move order, keeping its dead-state
	// table (exactRun; 0: never). A portfolio's helper runs so.
	exactRuns int64
}

// newTable is a fresh dead-state table for pass p. The unlimited pass of
// a large level starts with room for exactAtOnce states: on L255 deals it
// records 0.6–1.2M dead states, and growing the table there from 1,024
// slots cost 6 % of its time in rehashing and 9 % in copying.
func (sc schedule) newTable(nTiles, p int) *deadTable {
	if sc.tableMax > 0 {
		return newDeadTableMax(nTiles, sc.tableMax)
	}
	t := newDeadTable(nTiles)
	if sc.limit(p) == 0 && nTiles > exhaustFirstTiles {
		t.reserve(exactAtOnce)
	}
	return t
}

// exactAtOnce is how many states the unlimited pass of a large level has
// room for before its table grows (60 MB at 255 tiles, allocated but
// only touched as it fills).
const exactAtOnce = 1 << 20

// pressure reports whether the current pass prunes with the bound.
func (s *search) pressure() bool {
	return !s.sched.noPressure && (s.sched.pressureAll || s.sched.limit(s.pass) == 0)
}

// restartSchedule is for large levels: most realistic levels are won
// within a few hundred nodes by pass 0. Then projections, then beams
// (beam.go), which win the deals of the broad-mound layout L255w that the
// restarts and the exact pass left unknown at 10 s; then 32 restarts and
// the exact last pass. The restarts, which the beams have made mostly
// redundant, were 128 (~1M nodes): with 32 (~0.26M) the deals of the
// one-tower layout L255, all proven unsolvable by the exact pass, take
// 0.80x the nodes of sheep/4, gated beams included (docs/sheep.md).
// The deferred beams run after 1M nodes of the exact pass (sheep/10; 4M
// before, see lateBeams).
var restartSchedule = schedule{first: 1 << 15, restart: 1 << 13, restarts: 32, proj: defaultProjections, beams: defaultBeams,
	restartNear: 80, lateBeams: 1 << 20, retro: defaultRetro, retroFar: defaultRetroFar,
	farBeams: farBeams, farAt: 1 << 20, openingBelow: 50}

// farBeams: one beam of 8000 with dig 10, for the levels whose beams of
// 50 and 500 die before half the tiles and that the retrograde search
// does not prove (sheep/17; docs/sheep.md, "Wide beams where the
// narrow ones die early"). On the 22 P20 deals sheep/16 left unknown at
// 10 s in 1,000 it wins 8 alone (69, 74, 395, 431, 475, 702, 867, 913) in
// 4–6 s of one core; four of them no schedule decided within 90–240 s.
var farBeams = []beamRun{{width: 8000, dig: 10, perParent: 2}}

// sheep2Schedule is restartSchedule as sheep/2 ran it: 512 restarts, no
// projection proofs, tray-pressure bound, sleep sets, beams or restart
// gate (on today's table and node): the benchmark's baseline in the same
// run. Until sheep/6 it left sleep sets on.
var sheep2Schedule = schedule{first: 1 << 15, restart: 1 << 13, restarts: 512, noPressure: true, noSleep: true}

// defaultProjections: 48 subsets of the fewest useful types and one more,
// at most 4096 nodes each (about 0.1 s in all), spent only on levels pass
// 0 did not decide. On real-size deals of 14 types they have not fired so
// far (projections onto 4–5 types stay solvable, larger ones do not
// exhaust); on small levels they do, see TestProjectionProofsAgainstOracle.
var defaultProjections = projectionPlan{extra: 1, subsets: 48, perNodes: 4096, total: 1 << 18}

// exhaustFirstTiles: levels up to this size get one unlimited plain pass
// straight away. Of 200 random levels of 36–93 tiles with 3–5 slots it
// proves 29 unsolvable within 2 s, the restart schedule (which holds the
// exhaustive pass back by ~4M nodes) 16; real levels (190–330 tiles) are
// far too large to exhaust, and there restarts win.
const exhaustFirstTiles = 150

// scheduleFor picks the pass schedule of l.
func scheduleFor(l *Level) schedule {
	if len(l.tiles) <= exhaustFirstTiles {
		return schedule{}
	}
	return restartSchedule
}

// limit is the node limit of pass p, 0 for none.
func (sc schedule) limit(p int) int64 {
	switch {
	case p == 0:
		return sc.first
	case p <= sc.restarts:
		return sc.restart
	}
	return 0
}

// order is the move-ordering seed of pass p (board.score): 0, the plain
// order, for the first pass, and exactOrder for the last.
func (sc schedule) order(p int) int {
	if p > sc.restarts {
		return sc.exactOrder
	}
	return p
}

// frame is one level of the DFS: its moves live in search.arena[start:end];
// next is the arena index of the next move to try; nodes is the pass's
// node count when it opened (the work of its proof when it closes dead).
type frame struct {
	start, end, next int32
	nodes            int64
	// sleep is the frame's sleep set, search.sleep[sleepAt:sleepEnd]
	// (sleep.go): moves known to lead to dead states.
	sleepAt, sleepEnd int32
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

	sched     schedule
	pass      int   // current pass, see schedule
	passNodes int64 // nodes counted by the current pass

	best        []int32 // best partial line over all passes: most tiles cleared, first found
	bestCleared int
	// beamsCleared is the most tiles a state of the beam phase cleared
	// (farBeams' gate): a function of the level, as the phase is, where
	// bestCleared also holds pass 0's line and, after a resume, what the
	// checkpoint kept.
	beamsCleared int
	fp           uint64 // level fingerprint, checked on resume

	cursor    *projCursor // the projection phase (pass 0 only), see project.go
	parent    *search     // a projection's search: its checkpoints are the parent's
	projected uint64      // on outProjected: the types of the unsolvable projection
	retroLeft int         // on outRetro: the tiles left where no state can be cleared
	end       *endgame    // the endgame table, once the retrograde search built one

	sleep   []int32 // sleep sets of the open frames (frame.sleepAt)
	pending []int32 // the sleep set of the next frame pushed (childSleep)
	mark    []int32 // scratch of childSleep: per tile, the stamp it was last seen
	stamp   int32
	// deferred is the set of the schedule's beams (bit k: beams[k]) the
	// beam phase deferred (gated or late), and the farBeams (farBit) when
	// they are due, for the unlimited pass to run
	// at lateBeams nodes; checkpoints save it.
	deferred uint64
	// deadShrink is how much the last checkpoint's dead states shrank
	// when compressed (encodeDead); 0 before the first.
	deadShrink float64
	deflater   *flate.Writer // compresses the dead states of checkpoints

	// exactRun is the run of the unlimited pass going on (exactrun.go),
	// nextRun the pass node count at which the next one starts.
	exactRun, nextRun int64

	// deepLeft are the deep table's beams the beam phase left for the
	// unlimited pass (schedule.deepLate). Checkpoints need nothing for
	// them: a resumed search knows from the pass and its node count
	// whether they are still due (solve).
	deepLeft []beamRun

	// checkRows makes beams check every reach row they build against the
	// row built afresh (wrongRows); tests set it.
	checkRows bool
	signals   testSignals
	touched   uint64 // what touchChildren loaded, XORed: read by nothing
}

// testSignals are what the tests read to see a feature fire, in one place
// (the way River groups its tests' hooks in JobRescuerTestSignals): the
// search writes them and never reads them.
type testSignals struct {
	pressured   int64 // states pruned by the tray-pressure bound
	slept       int64 // sleep-set entries of the frames opened: moves skipped
	beamWon     bool  // the win came from a beam
	capped      int64 // beam children dropped by beamRun.perParent
	noMove      int64 // states with one free slot retracted by completable
	skipped     bool  // the restarts were skipped (restartNear)
	lateRun     bool  // deferred beams ran
	lateFree    int64 // deferred beams run only because they are no wider than lateFree
	wideAt      int64 // the pass's node count when a deferred beam wider than lateFree last ran
	gateCleared int   // the best line's cleared tiles when restartNear was asked (the gate's input)
	endgameCut  int64 // states at the endgame table's depth that it calls dead
	reachCut    int64 // states above it with no state of the table within reach
	endgameWon  bool  // the win was finished by the endgame table
	deepRan     bool  // the deep table's retrograde search (retroDeep) ran in the beam phase
	deepWon     bool  // a beam with the deep table won
	deepLateWon bool  // one of the deep table's beams run in the unlimited pass (deepLate) won
	openingRan  bool  // openingBeams ran (the beams before died early)
	openingWon  bool  // one of openingBeams won
	farRan      bool  // farBeams ran
	farWon      bool  // one of farBeams won
	rowsWrong   int64 // beam reach rows that differ from the row built afresh (checkRows)
}

// outcome is how a search ended.
type outcome int

const (
	outSolved outcome = iota
	outExhausted
	outStopped
	outPassLimit
	outProjected // a projection is unsolvable; search.projected names it
	outRetro     // the retrograde search found an empty layer; search.retroLeft names it
)

func newSearch(l *Level, m *solver.Meter, sched schedule) *search {
	return &search{
		b:     newBoard(l),
		m:     m,
		dead:  sched.newTable(len(l.tiles), 0),
		fp:    fingerprint(l),
		sched: sched,
	}
}

// root is the search whose state checkpoints save.
func (s *search) root() *search {
	for s.parent != nil {
		s = s.parent
	}
	return s
}

// pushFrame generates the moves of the current state, leaving out those
// of its sleep set (s.pending, set by childSleep): they lead to dead
// states (sleep.go), so they are skipped without a node or a table probe.
func (s *search) pushFrame() {
	start := int32(len(s.arena))
	s.arena, s.scratch = s.b.genMoves(s.arena, s.scratch, s.moveOrder(), s.pending)
	end := int32(len(s.arena))
	if s.sched.limit(s.pass) == 0 {
		s.touchChildren(s.arena[start:end])
	}
	if len(s.pending) > 0 {
		s.signals.slept += int64(len(s.pending))
	}
	sa := int32(len(s.sleep))
	s.sleep = append(s.sleep, s.pending...)
	s.pending = s.pending[:0]
	s.frames = append(s.frames, frame{start: start, end: end, next: start, nodes: s.passNodes,
		sleepAt: sa, sleepEnd: int32(len(s.sleep))})
}

// touchChildren loads the dead-state table's slot of the state each of
// moves leads to (the hash of a click is the state's hash XOR the tile's
// key), before the pass probes them one by one (step). A probe of a
// table of hundreds of MB is a cache miss, one per node; loaded together,
// the misses do not wait for each other (no load depends on another), and
// the probes that follow mostly find the slot in the cache: on hard P20
// deals the own search takes the same nodes in 0.91x the time by the
// median, the helper in 0.97x (docs/sheep.md, "Touching the table
// ahead"). Only the unlimited pass: the tables of limited passes are
// small and stay in the cache. A table that grows before the probes
// only makes the loads useless.
func (s *search) touchChildren(moves []int32) {
	b := s.b
	var sum uint64
	for _, mv := range moves {
		sum ^= s.dead.home(b.hash ^ b.zob[mv])
	}
	// Kept, so that the compiler keeps the loads.
	s.touched ^= sum
}

// solve runs passes until a win, exhaustion or a stop. On outSolved s.path
// is the winning line.
func (s *search) solve() outcome {
	// A search resumed after pass 0 needs the endgame table the beam
	// phase built (the deep one, when the schedule has one); it is a pure
	// function of the level and the plan.
	if s.pass > 0 && s.end == nil && s.sched.retro.keep {
		plan := s.sched.retro
		if s.sched.retroDeep.nodes > 0 {
			plan = s.sched.retroDeep
		}
		switch s.retroPhase(plan) {
		case retroProven:
			return outRetro
		case retroStopped:
			return outStopped
		}
		// The deep table's beams left for the unlimited pass are still
		// due unless it got past deepLate (they ran and did not win).
		if sc := s.sched; sc.retroDeep.nodes > 0 && sc.deepLate > 0 && len(sc.deepBeams) > 1 &&
			(sc.limit(s.pass) > 0 || s.passNodes <= sc.deepLate) {
			s.deepLeft = sc.deepBeams[1:]
		}
	}
	for {
		out := s.run()
		if out != outPassLimit {
			return out
		}
		// Projections run where pass 0 stopped: an interrupted attempt
		// leaves pass 0's checkpoint, so a resume repeats them exactly.
		if s.pass == 0 && s.sched.proj.total > 0 {
			switch out, mask := s.proveByProjection(); out {
			case projProven:
				s.projected = mask
				return outProjected
			case projStopped:
				return outStopped
			}
		}
		if s.pass == 0 && len(s.sched.beams) > 0 {
			if out, ended := s.endBeams(s.beamPhase()); ended {
				return out
			}
			s.signals.gateCleared = s.bestCleared
			if s.bestCleared*100 < s.sched.restartNear*len(s.b.l.tiles) {
				if s.sched.retroFar.nodes > 0 {
					switch s.retroPhase(s.sched.retroFar) {
					case retroProven:
						return outRetro
					case retroStopped:
						return outStopped
					}
				}
				if len(s.sched.farBeams) > 0 && s.beamsCleared*100 < s.sched.openingBelow*len(s.b.l.tiles) {
					s.deferred |= s.farBit()
				}
				// No line came near a win: skip the restarts,
				// straight to the exact pass (see restartNear).
				s.pass = s.sched.restarts
				s.signals.skipped = true
			}
		}
		s.nextPass()
	}
}

// farBit is the bit of s.deferred that says the schedule's farBeams are
// due (the one after the beams'): checkpoints keep the deferred set, so
// a search resumed in the unlimited pass knows it, as it knows the
// deferred beams.
func (s *search) farBit() uint64 { return 1 << len(s.sched.beams) }

// farBeamPhase runs the schedule's farBeams, from the start of the level,
// until one wins (line) or the meter stops (stopped); like the deferred
// beams, with boards of their own, so the pass goes on where it was when
// none wins. A checkpoint taken meanwhile keeps the bit and the pass's
// node count at farAt, so a resumed search runs them again.
func (s *search) farBeamPhase() (line []int32, stopped bool) {
	s.signals.farRan = true
	for _, br := range s.sched.farBeams {
		if line, _, stopped = s.beamSearch(br); line != nil || stopped {
			s.signals.farWon = line != nil
			return line, stopped
		}
	}
	s.deferred &^= s.farBit()
	return nil, false
}

// endBeams tells whether beams that returned line and stopped end the
// search, and how: a win becomes the search's path.
func (s *search) endBeams(line []int32, stopped bool) (outcome, bool) {
	switch {
	case stopped:
		return outStopped, true
	case line != nil:
		s.takeLine(line)
		s.signals.beamWon = true
		return outSolved, true
	case s.retroLeft > 0:
		return outRetro, true
	}
	return 0, false
}

// nextPass abandons the current pass (its open frames are not proven
// dead, so nothing is recorded for them) and starts the next one.
func (s *search) nextPass() {
	for len(s.path) > 0 {
		s.retract()
	}
	s.frames, s.arena, s.sleep, s.pending = s.frames[:0], s.arena[:0], s.sleep[:0], s.pending[:0]
	s.dead = s.sched.newTable(len(s.b.l.tiles), s.pass+1)
	s.pass++
	s.passNodes = 0
}

// run searches the current pass until a win, exhaustion, its node limit or
// a stop.
func (s *search) run() outcome {
	if len(s.frames) == 0 {
		s.pushFrame()
	}
	limit := s.sched.limit(s.pass)
	for len(s.frames) > 0 {
		// Before anything else, so that a checkpoint never holds the line
		// of a run that should have ended (exactRun).
		if limit == 0 && s.passNodes >= s.nextRun {
			s.nextExactRun()
		}
		f := &s.frames[len(s.frames)-1]
		if f.next == f.end {
			s.pop()
			continue
		}
		if s.m.CheckpointDue() {
			s.m.Checkpoint(s.root().encode())
		}
		if limit > 0 && s.passNodes >= limit {
			return outPassLimit
		}
		if s.m.Tick() {
			return outStopped
		}
		if len(s.deepLeft) > 0 && limit == 0 && s.passNodes == s.sched.deepLate {
			if out, ended := s.endBeams(s.deepLatePhase()); ended {
				return out
			}
		}
		if s.deferred&s.farBit() != 0 && limit == 0 && s.passNodes == s.sched.farAt {
			if out, ended := s.endBeams(s.farBeamPhase()); ended {
				return out
			}
		}
		if s.deferred&^s.farBit() != 0 && limit == 0 && (s.passNodes == s.sched.lateBeams || s.sched.lateWide > 0 && s.passNodes == s.sched.lateWide) {
			if out, ended := s.endBeams(s.lateBeamPhase()); ended {
				return out
			}
		}
		mv := s.arena[f.next]
		f.next++
		s.passNodes++
		s.childSleep(f, mv)
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
	if e := s.end; e != nil && b.left == e.depth() {
		if e.holds(b) {
			s.path = e.finish(b, s.path)
			s.signals.endgameWon = true
			return true
		}
		s.signals.endgameCut++
		s.retract()
		return false
	}
	if b.l.slots-b.traySize == 1 && s.sleeping() && !s.completable() {
		s.signals.noMove++
		s.retract()
		return false
	}
	if s.dead.contains(b.hash, b.removed) {
		s.retract()
		return false
	}
	// With one or two free slots the move generator's one-click
	// look-ahead (order.go) already finds a dead state within one
	// expansion, cheaper than the bound; it pays from three on.
	if b.l.slots-b.traySize >= 3 && s.pressure() && !b.tripleWithin() {
		s.signals.pressured++
		s.retract()
		return false
	}
	// The cut above the endgame table comes last: building the state's
	// row of states within reach is the costliest test with a deep table
	// (a pass over up to tens of KB), and a state the table or the bound
	// calls dead does not need it.
	if e := s.end; e != nil && !s.sched.noReach && b.left > e.depth() && !e.within(b, mv) {
		s.signals.reachCut++
		s.retract()
		return false
	}
	s.pushFrame()
	return false
}

// completable reports whether the state just clicked into, with one free
// slot, would get a move: with one free slot only a click completing a
// triple is legal (legal), and genMoves keeps such a click unless a
// clickable tile dominates it or it is asleep (s.pending is the state's
// sleep set). Without one the frame would open empty and close dead
// without being recorded (pop), so the unlimited pass retracts at once,
// without a table probe: on L255 deals 29–37 % of its nodes are such
// states, all with a sleep set (their completing clicks were tried in
// another order), and the probe was a quarter of the pass's time.
func (s *search) completable() bool {
	b := s.b
	for _, z := range b.clk {
		if b.tray[b.l.typ[z]] == 2 && !b.dominated(z) && !slices.Contains(s.pending, z) {
			return true
		}
	}
	return false
}

// pop closes the top frame: every move from its state failed, so the state
// is dead (the root's too, which then ends the search).
func (s *search) pop() {
	top := s.frames[len(s.frames)-1]
	s.frames = s.frames[:len(s.frames)-1]
	s.arena = s.arena[:top.start]
	s.sleep = s.sleep[:top.sleepAt]
	if len(s.frames) == 0 {
		return
	}
	// A state without a move (every click loses, is dominated, fails the
	// look-ahead or is asleep) is not recorded by the unlimited pass:
	// proving it again costs one move generation, about what a table
	// probe costs, and on L255 deals such states were 40–46 % of the
	// table (0.62M of 1.16M on deal 0). Without them the table holds
	// half the states for 1–3 % more nodes and the same time, so it
	// reaches twice as far before it evicts. Forgetting a dead state
	// never costs soundness (table.go). Limited passes record them all:
	// their node counts, which decide where they stop, stay as measured.
	if top.end == top.start && s.sleeping() {
		s.retract()
		return
	}
	s.dead.add(s.b.hash, s.b.removed, s.passNodes-top.nodes)
	s.retract()
}

// retract undoes the last click of the path.
func (s *search) retract() {
	last := s.path[len(s.path)-1]
	s.path = s.path[:len(s.path)-1]
	s.b.undo(last)
}
