package zuma

import (
	"context"
	"sync"

	"github.com/puzzled/puzzled/solver"
)

// solveHand finds the fewest insertions from the hand that clear the
// board, or proves that none do.
func solveHand(ctx context.Context, lvl *Level, opts solver.Options) (solver.Result, error) {
	hand := handCounts(lvl.Hand)
	res := solver.Result{Details: map[string]any{"mode": string(ModeHand)}}
	if opts.Resume == nil && countShort(lvl.Board, &hand) {
		// Decided before any search: no meter (it reads the clock), the
		// elapsed time is far below a millisecond.
		res.Verdict, res.Proof = solver.Unsolvable, "exhaustive"
		return res, nil
	}
	m, err := solver.NewMeter(ctx, opts)
	if err != nil {
		return solver.Result{}, err
	}
	bd := bounders.Get().(*bounder)
	lo := bd.handBound([]byte(lvl.Board), &hand)
	bounders.Put(bd)
	if lo > len(lvl.Hand) {
		if m.Resumed() != nil {
			return res, errResume
		}
		res.Verdict, res.Proof = solver.Unsolvable, "exhaustive"
		res.Stats = m.Stats(0)
		return res, nil
	}
	s := newIDA(m, false)
	defer s.release()
	root := state{board: []byte(lvl.Board), hand: hand}
	out, plan, err := s.run(root, lo, len(lvl.Hand), m.Resumed())
	if err != nil {
		return res, err
	}
	res.Stats = m.Stats(s.bound)
	switch out {
	case idaFound:
		res.Verdict, res.Optimal = solver.Solved, true
		res.Value, res.Plan = solver.Int64(int64(len(plan))), encodePlan(plan)
		res.Proof = proofFor(len(plan), lo)
		res.Stats.Depth = len(plan)
	case idaExhausted:
		res.Verdict, res.Proof = solver.Unsolvable, "exhaustive"
		res.Stats.Depth = len(lvl.Hand)
	default:
		res.Verdict = solver.Unknown
		return res, m.Err()
	}
	return res, nil
}

// countShort reports whether counting alone shows the hand short of some
// color. The k balls of color c on the board vanish in groups of 3 or 4
// balls of c (see bound.go: eagerness), so in at least ⌈k/4⌉ groups
// holding at least 3⌈k/4⌉ balls of c: the hand must supply 3⌈k/4⌉−k of
// them when that is positive, that is 2 for k = 1 and 1 for k = 2 or 5.
// Colors draw on disjoint hand balls, so the total is needed too. The
// relaxation bound implies all of this; it is only a quick first test.
func countShort[B ~string | ~[]byte](board B, hand *[26]int8) bool {
	var k [26]int8
	for i := 0; i < len(board); i++ {
		k[board[i]-'A']++
	}
	need, total := 0, 0
	for c := range k {
		total += int(hand[c])
		short := 0
		switch k[c] {
		case 1:
			short = 2
		case 2, 5:
			short = 1
		}
		if short > int(hand[c]) {
			return true
		}
		need += short
	}
	return need > total
}

// bounders recycles DP tables between solves: at LeetCode sizes a whole
// solve takes microseconds, and allocating fresh tables was a good part
// of that.
var bounders = sync.Pool{New: func() any { return new(bounder) }}

// proofFor names how a value found by iterative deepening was shown
// optimal: the root bound already met, or every smaller bound exhausted.
func proofFor(value, rootBound int) string {
	if value == rootBound {
		return "lower-bound"
	}
	return "exhaustive"
}
