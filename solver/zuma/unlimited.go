package zuma

import (
	"context"

	"github.com/puzzled/puzzled/solver"
)

// maxBoundDP is the longest board whose lower bound uses the cubic
// relaxation DP; longer boards get countBound.
const maxBoundDP = 2 * MaxBoard

// solveUnlimited finds the fewest insertions, any colors, that clear the
// board. The incumbent (run DP plan, replayed) is the upper bound; IDA*
// over bounds lb..ub-1 either finds something shorter or proves the
// incumbent optimal. Out of budget, the incumbent is reported with
// optimal false and the proven bounds.
func solveUnlimited(ctx context.Context, lvl *Level, opts solver.Options) (solver.Result, error) {
	m, err := solver.NewMeter(ctx, opts)
	if err != nil {
		return solver.Result{}, err
	}
	res := solver.Result{Details: map[string]any{"mode": string(ModeUnlimited)}}
	b := []byte(lvl.Board)
	inc, err := incumbent(ctx, b)
	if err != nil {
		m.Stopped()
		res.Verdict, res.Stats = solver.Unknown, m.Stats(0)
		return res, m.Err()
	}
	lb, ub := unlimitedBound(b), len(inc)
	report := func(plan []move, optimal bool, lo int, proof string) (solver.Result, error) {
		res.Verdict, res.Optimal, res.Proof = solver.Solved, optimal, proof
		res.Value, res.Plan = solver.Int64(int64(len(plan))), encodePlan(plan)
		res.Stats.Depth = len(plan)
		res.Stats.LowerBound, res.Stats.UpperBound = solver.Int64(int64(lo)), solver.Int64(int64(len(plan)))
		return res, nil
	}
	res.Stats = m.Stats(0)
	if lb >= ub {
		return report(inc, true, ub, "lower-bound")
	}
	if len(b) > MaxSearchUnlimited {
		return report(inc, false, lb, "")
	}
	s := newIDA(m, true)
	defer s.release()
	out, plan, err := s.run(state{board: b}, lb, ub-1, m.Resumed())
	if err != nil {
		return res, err
	}
	res.Stats = m.Stats(s.bound)
	switch {
	case out == idaFound:
		return report(plan, true, len(plan), proofFor(len(plan), lb))
	case out == idaExhausted:
		return report(inc, true, ub, "exhaustive")
	case m.Err() != nil:
		res.Verdict = solver.Unknown
		res.Value, res.Plan = solver.Int64(int64(len(inc))), encodePlan(inc)
		res.Stats.LowerBound, res.Stats.UpperBound = solver.Int64(int64(s.bound)), solver.Int64(int64(ub))
		return res, m.Err()
	default:
		// Every bound below s.bound was exhausted: the optimum is ≥ s.bound.
		return report(inc, false, s.bound, "")
	}
}

// unlimitedBound is the admissible lower bound of an unlimited board.
func unlimitedBound(b []byte) int {
	if len(b) <= maxBoundDP {
		bd := bounders.Get().(*bounder)
		defer bounders.Put(bd)
		return bd.bound(b, nil)
	}
	return countBound(b)
}

// countBound: a color with 1 or 2 balls on the board needs 3-n more of
// it, and a non-empty board needs at least one insertion.
func countBound(b []byte) int {
	var n [26]int
	for _, c := range b {
		n[c-'A']++
	}
	lb := 0
	for _, k := range n {
		if k == 1 || k == 2 {
			lb += 3 - k
		}
	}
	return max(lb, min(1, len(b)))
}
