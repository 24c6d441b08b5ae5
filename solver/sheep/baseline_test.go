package sheep

import (
	"context"

	"github.com/puzzled/puzzled/solver"
)

// baselineSolve is the approach of the public solvers, kept as the
// benchmark's yardstick: plain depth-first backtracking over every
// clickable tile in index order, no transposition table, no move ordering,
// no dominance, no dead-end pruning (only clicks that lose at once are
// skipped). It shares the incremental board with the real search.
func baselineSolve(ctx context.Context, l *Level, budget solver.Budget) (solver.Verdict, int64) {
	m, _ := solver.NewMeter(ctx, solver.Options{Budget: budget})
	if precheckFail(l) != "" {
		return solver.Unsolvable, 0
	}
	b := newBoard(l)
	var rec func() (solver.Verdict, bool)
	rec = func() (solver.Verdict, bool) {
		if b.left == 0 {
			return solver.Solved, true
		}
		moves := make([]int32, 0, len(b.clk))
		for _, i := range b.clk {
			if b.legal(i) {
				moves = append(moves, i)
			}
		}
		sortInt32(moves)
		for _, i := range moves {
			if m.Tick() {
				return solver.Unknown, true
			}
			b.apply(i)
			v, done := rec()
			b.undo(i)
			if done {
				return v, true
			}
		}
		return solver.Unsolvable, false
	}
	v, _ := rec()
	return v, m.Nodes()
}

func sortInt32(s []int32) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
