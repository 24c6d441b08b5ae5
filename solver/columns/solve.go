package columns

import (
	"context"
	"fmt"

	"github.com/puzzled/puzzled/solver"
)

// Values of Details["search"].
const (
	searchExact    = "exact"
	searchBeam     = "beam"
	searchPrecheck = "precheck"
)

// outcome is what a search hands to buildResult.
type outcome struct {
	verdict solver.Verdict
	plan    []uint8
	optimal bool
	proof   string
	search  string
	best    int64 // best score found on any line
}

// Solve runs the exact search on short sequences and the beam search on
// long ones.
func (k *kind) Solve(ctx context.Context, lvl solver.Level, opts solver.Options) (solver.Result, error) {
	l, ok := lvl.(*Level)
	if !ok {
		return solver.Result{Verdict: solver.Unknown}, ErrWrongLevel
	}
	m, err := solver.NewMeter(ctx, opts)
	if err != nil {
		return solver.Result{Verdict: solver.Unknown}, fmt.Errorf("columns: %w", err)
	}
	var out outcome
	if k.useExact(l) {
		out, err = solveExact(l, m)
	} else {
		out, err = solveBeam(l, m, k.beamConfig(opts.Budget))
	}
	if err != nil {
		return solver.Result{Verdict: solver.Unknown}, err
	}
	res, err := buildResult(l, out, m)
	if err != nil {
		return res, err
	}
	return res, m.Err()
}

// beamConfig is the configuration with MaxBeamWidth resolved: a time
// budget lets the rounds widen until it runs out.
func (k *kind) beamConfig(b solver.Budget) Config {
	cfg := k.cfg
	if cfg.MaxBeamWidth == 0 {
		cfg.MaxBeamWidth = min(untimedWidening*cfg.BeamWidth, maxBeamWidth)
		if b.MaxMS > 0 {
			cfg.MaxBeamWidth = max(timedMaxBeamWidth, cfg.BeamWidth)
		}
	}
	return cfg
}

// useExact reports whether the estimated tree is small enough.
func (k *kind) useExact(l *Level) bool {
	if k.cfg.ExactNodes < 0 || len(l.pieces) > maxExactPieces {
		return false
	}
	size := 1.0
	for _, ms := range moveLists(l) {
		size *= float64(len(ms))
		if size > k.cfg.ExactNodes {
			return false
		}
	}
	return true
}

func solveExact(l *Level, m *solver.Meter) (outcome, error) {
	s := newDFS(l, m)
	var resume []uint8
	if p := m.Resumed(); p != nil {
		path, best, line, err := decodeDFS(l, p)
		if err != nil {
			return outcome{}, err
		}
		resume, s.best, s.bestLine = path, best, line
	}
	m.KeepsBest(func() solver.Best { return bestSoFar(s.bestLine, s.best) })
	st := s.run(resume)
	out := outcome{search: searchExact, plan: s.bestLine, verdict: solver.Unknown, best: s.best}
	switch {
	case st == dfsFound:
		out.verdict, out.plan = solver.Solved, s.goalLine
	case st == dfsStopped:
		m.Checkpoint(encodeDFS(s.stopAt, s.best, s.bestLine))
		if l.Goal.Type == GoalScore && s.best >= l.Goal.Score {
			out.verdict = solver.Solved
		}
	case l.Goal.Type == GoalScore:
		out.verdict, out.optimal, out.proof = solver.Unsolvable, true, "exhaustive"
		if s.best >= l.Goal.Score {
			out.verdict, out.proof = solver.Solved, "exhaustive"
		}
	default:
		out.verdict, out.proof = solver.Unsolvable, "exhaustive"
	}
	return out, nil
}

func solveBeam(l *Level, m *solver.Meter, cfg Config) (outcome, error) {
	if proof := precheck(l); proof != "" {
		return outcome{verdict: solver.Unsolvable, proof: proof, search: searchPrecheck}, nil
	}
	a := newAnytime(l, m, cfg)
	if p := m.Resumed(); p != nil {
		if err := a.decode(p); err != nil {
			return outcome{}, err
		}
	}
	m.KeepsBest(func() solver.Best {
		c := *a // result merges the current round in: on a copy, the search goes on as it was
		plan, _, best := c.result()
		return bestSoFar(plan, best)
	})
	a.run()
	plan, found, best := a.result()
	out := outcome{search: searchBeam, plan: plan, verdict: solver.Unknown, best: best}
	if found {
		out.verdict = solver.Solved
	}
	return out, nil
}

// precheck proves some levels unsolvable without a search. It returns the
// proof name or "".
func precheck(l *Level) string {
	rem := remainingCounts(l)[0]
	bc := l.geom.boardCounts(&l.start)
	switch l.Goal.Type {
	case GoalClear:
		if !clearPossible(&bc, &rem) {
			return "precheck:color-count"
		}
	case GoalTarget:
		if !targetPossible(&l.start, l.initialTarget(), &rem, &l.geom) {
			return "precheck:color-count"
		}
	case GoalScore:
		if scoreBound(&bc, &rem) < l.Goal.Score {
			return "precheck:score-bound"
		}
	}
	return ""
}

// bestSoFar is the search's best-scoring line so far, for checkpoints.
func bestSoFar(line []uint8, score int64) solver.Best {
	if len(line) == 0 {
		return solver.Best{}
	}
	return solver.Best{Plan: encodePlan(line), Moves: len(line), Details: map[string]any{"score": score}}
}

// buildResult replays the plan and fills the result from the replay.
func buildResult(l *Level, out outcome, m *solver.Meter) (solver.Result, error) {
	plan := make([]Move, len(out.plan))
	for i, mv := range out.plan {
		plan[i] = Move{Col: int(mv) / 3, Rot: int(mv) % 3}
	}
	rep, err := Replay(l, plan)
	res := solver.Result{
		Verdict: out.verdict,
		Optimal: out.optimal,
		Proof:   out.proof,
		Plan:    encodePlan(out.plan),
		Stats:   m.Stats(len(out.plan)),
	}
	if err != nil {
		res.Verdict = solver.Unknown
		return res, fmt.Errorf("columns: internal error: plan fails replay: %w", err)
	}
	if res.Verdict == solver.Unknown && rep.GoalMet {
		// A stopped search's best line may reach the goal already.
		res.Verdict = solver.Solved
	}
	res.Value = solver.Int64(rep.Score)
	res.Details = map[string]any{
		"score":         rep.Score,
		"best_score":    max(out.best, rep.Score),
		"goal_met":      rep.GoalMet,
		"pieces_placed": rep.Placed,
		"search":        out.search,
	}
	return res, nil
}
