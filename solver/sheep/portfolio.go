package sheep

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/puzzled/puzzled/solver"
)

// A portfolio puts a second core on one hard level (issue 34: a designer
// checking one level waits for that one level). Beside the level's own
// search (scheduleFor) a helper search runs another schedule
// (helperSchedule): beams the own schedule does not run or runs late,
// then an exact pass in another move order. The first of the two to
// decide ends both.
//
// Sound because each search is: either alone is complete (its last pass
// is unlimited) and sound (a win is a line, replayed by finish before it
// is returned; unsolvable is a proof of that search's own), and the two
// share no state. So the verdict is the one either would give with time
// enough, whichever comes first; only how soon changes.
//
// What stays as it was: the own search checkpoints as alone (the helper
// keeps nothing: a resumed job starts its helper afresh), and a budget or
// a ctx that ends ends both. A node budget keeps one core (Solve), so a
// result under one stays a function of the level and the budget.

// portfolioAfter is how long the own search runs alone before the helper
// starts: most levels are decided in milliseconds (realistic ones in a
// few hundred nodes of pass 0; the game's deals at the median in about
// 0.5 s), and a job of a worker's bundle moves to a solve process after
// 5 ms of CPU (worker.InProcessSlice), so a helper started at once would
// mostly be started for nothing.
const portfolioAfter = 100 * time.Millisecond

// helperBeams are the helper's beams, every one ungated: first beams of
// 1000 with the dig weights the own schedule lacks (on capture-264 deals
// that sheep/9 left unknown at 10 s, dig 300 or 600 wins deal 11 within
// 1.8M nodes, 60 or 600 wins 811, 10 and 60 win others; noise 20000 won
// 457; docs/sheep.md, "Beams of 1000"), then the wide beams that the own
// schedule defers behind its gate or runs only after 1M nodes of its
// exact pass.
var helperBeams = []beamRun{
	{width: 1000, dig: 600, perParent: 2},
	{width: 1000, dig: 300, perParent: 2},
	{width: 1000, dig: 60, perParent: 2},
	{width: 1000, dig: 10, perParent: 2},
	{width: 1000, dig: 100, perParent: 2, noise: 20000, seed: 11},
	{width: 2000, dig: 200},
	{width: 4000, dig: 400, perParent: 2, noise: 300, seed: 3},
	{width: 4000, dig: 200, perParent: 2},
	{width: 8000, dig: 200, perParent: 2},
}

// helperSchedule is the helper's: a short pass 0 (the beams run after a
// limited pass 0), the beams, no restarts, then the unlimited pass. Since
// sheep/11 it builds an endgame table of its own (endgame.go,
// helperRetro) before its first beam, runs that beam (dig 600, which wins
// capture-264 deal 11 in about 2M nodes) and then its exact pass
// (tableFirst). Since sheep/12 the pass cuts above the table too (reach)
// and starts in the plain move order, the own search's exact order: the
// own search reaches its exact pass only after some 35M nodes of beams
// and restarts on hard deals, so the two do not repeat each other within
// seconds, and the plain order with the cut wins deals the order of
// helperOrder (sheep/11's) does not: capture-264 deals 168, 386, 670 in
// 4M nodes each, where sheep/11's helper found nothing in 12M
// (docs/sheep.md, "Reach"). Since sheep/13 the pass goes back to its root
// in a new order after 4M nodes, then after 4M, 8M, 4M, … more (Luby
// runs, exactrun.go): on the 31 capture-264 deals sheep/12 left unknown
// at 10 s, the runs won 6 within 24M nodes of the helper alone, the
// single pass 2. The other beams of 1000 still run after 8M nodes of the
// pass (they win deals 243 and 292 there, in 2M nodes each), but the
// wider ones wait for 32M (lateWide): in sheep/12 they took the rest of
// a 10-s budget, and the pass never got past 8M nodes (docs/sheep.md,
// "Runs of the exact pass"). Since sheep/15 beams that aim at the deep
// table run once it is built (helperDeepBeams), since sheep/16 all but
// the first after 2M nodes of the exact pass. The own search runs beams
// first; with the table, the exact pass wins deals of the game's layouts
// that no beam wins (docs/sheep.md, "Endgame table"), so the two cores
// differ in what they try first, not only in beam settings. The table is built on the
// helper's own core rather than shared, so that neither search waits for
// the other.
var helperSchedule = schedule{first: 1 << 12, beams: helperBeams,
	retro: helperRetro, retroDeep: helperRetroDeep, deepBeams: helperDeepBeams, deepLate: 1 << 21,
	tableFirst: true, lateBeams: 1 << 23, lateWide: 1 << 25, exactRuns: 1 << 22,
	openingBeams: helperOpeningBeams, openingBelow: 50}

// helperOpeningBeams run after the helper's first beam when it died
// before half the tiles (schedule.openingBeams, sheep/17): a beam of 6000
// with dig 10 and no cap per parent, another line through the opening
// than the own search's farBeams. On the 22 P20 deals sheep/16 left
// unknown at 10 s it wins 8 alone (23, 74, 367, 395, 612, 702, 867, 971)
// in 3–4.5 s of one core, four of them ones farBeams does not win.
var helperOpeningBeams = []beamRun{{width: 6000, dig: 10}}

// helperDeepBeams run with the helper's deep table (schedule.deepBeams):
// beams of 1000 that weigh the table's states within reach
// (beamRun.reach; docs/sheep.md, "Beams that aim at the table"). On the
// 26 capture-264 deals sheep/14 left unknown at 10 s, with the deep
// table, the first alone wins 11 (353, 354, 411, 525, 562, 591, 687, 726,
// 789, 882, 915), the three 17, each in about 2M nodes. The first runs
// before the exact pass, the other two after 2M nodes of it (deepLate,
// sheep/16): each costs 1.5–3 s of the helper's core, and run before the
// pass they kept it from deals it wins within 2M nodes (168, 259, 537;
// docs/sheep.md, "The exact pass between the helper's deep beams").
var helperDeepBeams = []beamRun{
	{width: 1000, dig: 10, perParent: 2, reach: 3000},
	{width: 1000, dig: 10, perParent: 2, reach: 10000},
	{width: 1000, dig: 300, perParent: 2, reach: 3000},
}

// helperRetro builds the helper's endgame table before its beams, with
// twice the states of the own search's (defaultRetro) and layers four
// times as wide: the helper's core is spare, and the deeper the table,
// the more of the exact pass it cuts.
var helperRetro = retroPlan{nodes: 1 << 18, maxLayer: 1 << 15, keep: true}

// helperRetroDeep replaces helperRetro's table once the helper's first
// beam failed with it (schedule.retroDeep, sheep/14; since sheep/15
// helperDeepBeams run with it, not that beam again): up to 4M states
// expanded, layers of up to 512K. On the 31 capture-264 deals sheep/13
// left unknown at 10 s on two cores the table reaches 23–87 tiles from the
// end instead of 11–35, and the helper decides 9 of them within 10 s
// with it (its first beam, run again, wins 3), sheep/13 3 (docs/sheep.md,
// "A deeper table for the helper"). It costs about 3 s of the helper's
// core and some 280 MB, so the small table comes first: with it the
// first beam decides many deals within a second (capture-264 deals 2, 8,
// 11, 37, 51, 67 in 0.86–1.04 s), which would otherwise wait for the own
// search (1.7–2.4 s).
var helperRetroDeep = retroPlan{nodes: 1 << 22, maxLayer: 1 << 19, keep: true}

// helperOrder seeded the helper's exact pass (board.score) until sheep/12;
// any seed past the restarts' 1..restarts would do.
const helperOrder = 1001

// errDecided ends the other search of a portfolio once one decided.
var errDecided = errors.New("sheep: the other search of the portfolio decided")

// solvePortfolio is solveWith(own) with a helper search, solveWith(helper),
// on a second core from after on (see above).
func solvePortfolio(ctx context.Context, l *Level, opts solver.Options, own, helper schedule, after time.Duration) (solver.Result, error) {
	return portfolio(ctx, opts,
		func(ctx context.Context, opts solver.Options) (solver.Result, error) {
			return solveWith(ctx, l, opts, own)
		},
		func(ctx context.Context) (solver.Result, error) { return solveWith(ctx, l, solver.Options{}, helper) },
		after)
}

// portfolio runs own with opts, and helper from after on while own runs.
// The result is the first definitive one, with the nodes of both searches
// and details.portfolio saying whose it is ("own" or "helper"; absent when
// the helper never started); when neither decides it is own's.
func portfolio(ctx context.Context, opts solver.Options,
	own func(context.Context, solver.Options) (solver.Result, error),
	helper func(context.Context) (solver.Result, error), after time.Duration) (solver.Result, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	type ended struct {
		res solver.Result
		err error
	}
	helped := make(chan ended, 1)
	var helperWon atomic.Bool
	timer := time.AfterFunc(after, func() {
		res, err := helper(ctx)
		if err == nil && res.Verdict.Definitive() {
			helperWon.Store(true)
			stop(errDecided)
		}
		helped <- ended{res, err}
	})
	ownOpts := opts
	if opts.Checkpoint != nil {
		// The own search writes a last checkpoint when it stops; once the
		// helper decided, the job ends with its result instead.
		ownOpts.Checkpoint = func(blob []byte) {
			if !helperWon.Load() {
				opts.Checkpoint(blob)
			}
		}
	}
	res, err := own(ctx, ownOpts)
	if timer.Stop() {
		return res, err // the helper never started
	}
	stop(errDecided) // own decided, its budget ran out or the caller's ctx ended
	h := <-helped
	// Own's time and checkpoints span the job (resumes included); the
	// nodes are both searches' work.
	stats := res.Stats
	stats.Nodes += h.res.Stats.Nodes
	whose := "own"
	if helperWon.Load() && !(err == nil && res.Verdict.Definitive()) {
		stats.Depth = h.res.Stats.Depth
		res, err, whose = h.res, nil, "helper"
	}
	res.Stats = stats
	if res.Details != nil {
		res.Details["portfolio"] = whose
	}
	return res, err
}
