package sheep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Solve decides l exactly: solved with a plan, unsolvable with a proof, or
// unknown when the budget or ctx ran out (then Plan is the best partial
// line). On ctx cancellation the partial result comes with an error
// wrapping ctx.Err(). With opts.Threads ≥ 2, a large level without a node
// budget gets a second search on another core (portfolio.go).
func Solve(ctx context.Context, l *Level, opts solver.Options) (solver.Result, error) {
	sched := scheduleFor(l)
	if opts.Threads >= 2 && opts.Budget.MaxNodes == 0 && len(l.tiles) > exhaustFirstTiles {
		return solvePortfolio(ctx, l, opts, sched, helperSchedule, portfolioAfter)
	}
	return solveWith(ctx, l, opts, sched)
}

// solveWith is Solve with a given pass schedule (tests use small ones).
func solveWith(ctx context.Context, l *Level, opts solver.Options, sched schedule) (solver.Result, error) {
	m, err := solver.NewMeter(ctx, opts)
	if err != nil {
		return solver.Result{}, err
	}
	if name := precheckFail(l); name != "" {
		return finish(l, m, solver.Unsolvable, "precheck:"+name, nil)
	}
	s := newSearch(l, m, sched)
	m.KeepsBest(func() solver.Best { return bestSoFar(l, s.best, s.bestCleared) })
	if p := m.Resumed(); p != nil {
		if err := s.resume(p); err != nil {
			return solver.Result{}, err
		}
	}
	switch s.solve() {
	case outSolved:
		return finish(l, m, solver.Solved, "", s.path)
	case outExhausted:
		return finish(l, m, solver.Unsolvable, "exhaustive", s.best)
	case outProjected:
		return finish(l, m, solver.Unsolvable, projectionProof(l, s.projected), s.best)
	case outRetro:
		return finish(l, m, solver.Unsolvable, retroProof(s.retroLeft), s.best)
	}
	// The last checkpoint, for a resume; encoding the dead states costs up
	// to seconds, so not when no one takes it (a portfolio's helper, a
	// benchmark) or when the portfolio's other search decided.
	if opts.Checkpoint != nil && !errors.Is(context.Cause(ctx), errDecided) {
		m.Checkpoint(s.encode())
	}
	res, err := finish(l, m, solver.Unknown, "", s.best)
	if err != nil {
		return res, err
	}
	return res, m.Err()
}

// bestSoFar is the search's best partial line, for checkpoints: the tiles
// it clicks and how many of the level's tiles it clears.
func bestSoFar(l *Level, line []int32, cleared int) solver.Best {
	if len(line) == 0 {
		return solver.Best{}
	}
	plan, _ := json.Marshal(planIDs(l, line)) // strings always marshal
	return solver.Best{Plan: plan, Moves: len(line), Details: map[string]any{"tiles": len(l.tiles), "cleared": cleared}}
}

func planIDs(l *Level, line []int32) []string {
	ids := make([]string, len(line))
	for k, i := range line {
		ids[k] = l.tiles[i].ID
	}
	return ids
}

// finish builds the result, replaying its plan first: a plan that does not
// replay to what the result claims is a solver bug and fails loudly.
func finish(l *Level, m *solver.Meter, v solver.Verdict, proof string, line []int32) (solver.Result, error) {
	plan, err := json.Marshal(planIDs(l, line))
	if err != nil {
		return solver.Result{}, fmt.Errorf("sheep: encoding plan: %w", err)
	}
	o, err := replay(l, line)
	if err != nil {
		return solver.Result{}, fmt.Errorf("sheep: solver bug: own plan does not replay: %w", err)
	}
	res := solver.Result{
		Verdict: v,
		Proof:   proof,
		Plan:    plan,
		Details: map[string]any{"tiles": len(l.tiles), "cleared": o.Cleared},
		Stats:   m.Stats(len(line)),
	}
	if len(l.ignored) > 0 {
		res.Details["ignored_fields"] = l.IgnoredFields()
	}
	return res, nil
}
