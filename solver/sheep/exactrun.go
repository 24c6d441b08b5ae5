package sheep

// Runs of the unlimited pass. A depth-first search that took a bad early
// choice spends its budget below it: on capture-264 deals the plain exact
// pass of the portfolio's helper went 22M nodes without a win on deals
// where the same pass, sent back to its root in a new move order every
// few million nodes, wins within 4–16M (docs/sheep.md, "Runs of the exact
// pass"). The pass keeps its dead-state table across runs, so each run
// skips what the earlier ones proved dead, and the runs grow along the
// Luby sequence (1, 1, 2, 1, 1, 2, 4, …) times schedule.exactRuns nodes,
// so that runs of every length come back again and again.
//
// Sound and still exact: a state enters the table only when every move
// from it was tried or soundly pruned, which makes it dead whatever the
// order that proved it; sleep sets, the only pruning that depends on the
// order moves were tried in, live in the frames of the current line and
// start empty at each run. A run that closes the root therefore proves
// the level unsolvable like the single pass would, and a line any run
// finds is a line. The pass stays complete: run k has Luby(k)·exactRuns
// nodes and Luby's terms grow without bound, so some run is as long as
// the single pass would need, and the table (while it does not evict)
// only shortens it.
//
// Which run is going on is a function of the pass's node count
// (exactRunStart), so a checkpoint needs nothing more than before, and a
// resumed pass starts where the uninterrupted one was, in the same order.

// luby is the i-th term (i ≥ 1) of the Luby sequence.
func luby(i int64) int64 {
	for k := uint(1); ; k++ {
		if i == 1<<k-1 {
			return 1 << (k - 1)
		}
		if i < 1<<k-1 {
			return luby(i - (1<<(k-1) - 1))
		}
	}
}

// exactRunStart is the pass node count at which run k starts (run 0, the
// first, at 0).
func (sc schedule) exactRunStart(k int64) int64 {
	var at int64
	for i := int64(1); i <= k; i++ {
		at += sc.exactRuns * luby(i)
	}
	return at
}

// exactRunAt is the run going on at the pass's n-th node.
func (sc schedule) exactRunAt(n int64) int64 {
	var k int64
	if sc.exactRuns == 0 {
		return 0
	}
	for sc.exactRunStart(k+1) <= n {
		k++
	}
	return k
}

// exactRunOrder is the move-ordering seed of run k ≥ 1 (board.score); run
// 0 takes the schedule's exactOrder. Past the restarts' seeds 1..restarts
// and sheep/11's helperOrder.
const exactRunOrder = 2000

// nextExactRun sends the unlimited pass back to its root if its node
// count reached the next run (never without schedule.exactRuns), and
// sets when the one after starts.
func (s *search) nextExactRun() {
	if s.sched.exactRuns == 0 {
		s.nextRun = 1 << 62
		return
	}
	k := s.sched.exactRunAt(s.passNodes)
	s.nextRun = s.sched.exactRunStart(k + 1)
	if k == s.exactRun {
		return
	}
	s.exactRun = k
	for len(s.path) > 0 {
		s.retract()
	}
	s.frames, s.arena, s.sleep, s.pending = s.frames[:0], s.arena[:0], s.sleep[:0], s.pending[:0]
	s.pushFrame()
}

// moveOrder is the move-ordering seed of the current pass and run.
func (s *search) moveOrder() int {
	if s.exactRun > 0 && s.sched.limit(s.pass) == 0 {
		return exactRunOrder + int(s.exactRun)
	}
	return s.sched.order(s.pass)
}
