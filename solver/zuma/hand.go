package zuma

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// solveHand finds the fewest insertions from the hand that clear the
// board, or proves that none do.
func solveHand(ctx context.Context, lvl *Level, opts solver.Options) (solver.Result, error) {
	m, err := solver.NewMeter(ctx, opts)
	if err != nil {
		return solver.Result{}, err
	}
	root := state{board: []byte(lvl.Board), hand: handCounts(lvl.Hand)}
	s := newIDA(m, false)
	lo := s.h(&root)
	res := solver.Result{Details: map[string]any{"mode": string(ModeHand)}}
	if lo > len(lvl.Hand) {
		if m.Resumed() != nil {
			return res, errResume
		}
		res.Verdict, res.Proof = solver.Unsolvable, "exhaustive"
		res.Stats = m.Stats(0)
		return res, nil
	}
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
	return checked(lvl, res)
}

// proofFor names how a value found by iterative deepening was shown
// optimal: the root bound already met, or every smaller bound exhausted.
func proofFor(value, rootBound int) string {
	if value == rootBound {
		return "lower-bound"
	}
	return "exhaustive"
}

// checked verifies res before it is reported; a failure is a solver bug.
func checked(lvl *Level, res solver.Result) (solver.Result, error) {
	if err := Verify(lvl, res); err != nil {
		return solver.Result{Verdict: solver.Unknown, Details: res.Details, Stats: res.Stats},
			fmt.Errorf("zuma: solver bug, result fails verification: %w", err)
	}
	return res, nil
}
