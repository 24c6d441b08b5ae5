// Package solveproc runs one solve of a stored job: parse, search, verify
// by replay, rate. [Run] does it in this process; a [Pool] does it in child
// processes that run at a lower CPU priority, and [Serve] is the loop of
// such a child.
//
// Why children: bulk searches are CPU-bound and a worker runs one per CPU.
// In the process of the API and the interactive slots they make every
// step of a designer's job wait for a CPU (docs/queries.md). Lowering
// the priority of their threads inside one Go process helps the median
// but not the tail: a garbage collection's stop-the-world waits for those
// threads too. A child at low priority has its own runtime, so the kernel can
// always prefer the service's threads and nothing waits on the child.
package solveproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// Request is one solve of a stored job.
type Request struct {
	JobID int64  `json:"job_id"` // for logs only
	Kind  string `json:"kind"`
	Level []byte `json:"-"` // the stored level body
	// Budget of the search; zero: the kind's default (solver.BudgetFor).
	Budget          solver.Budget `json:"budget"`
	CheckpointEvery time.Duration `json:"checkpoint_every"`
	Resume          []byte        `json:"-"` // last checkpoint, nil if none
	// Playouts per player of the difficulty figures (0: none), run on
	// PlayoutWorkers goroutines.
	Playouts       int `json:"playouts"`
	PlayoutWorkers int `json:"playout_workers"`
	// Threads is how many cores the search may use (solver.Options.Threads).
	Threads int `json:"threads,omitempty"`
}

// ErrFinal marks failures that a retry cannot fix: a kind this build does
// not know, a stored level that does not parse, a plan that fails replay.
var ErrFinal = errors.New("permanent failure")

// RateTimeCap bounds the difficulty figures of a job without a time budget.
const RateTimeCap = 30 * time.Second

// Run solves req in this process and checks the result by replay, as
// RunKind, for a caller that has only the kind's name (a child process):
// a kind that reg does not know is an ErrFinal.
func Run(ctx context.Context, reg *solver.Registry, req Request, checkpoint func([]byte), log *slog.Logger) (solver.Result, error) {
	kind, ok := reg.Kind(req.Kind)
	if !ok {
		return solver.Result{}, fmt.Errorf("%w: kind %q is not registered in this worker", ErrFinal, req.Kind)
	}
	return RunKind(ctx, kind, req, checkpoint, log)
}

// RunKind solves req, a level of kind, in this process and checks the
// result by replay. On success the result is verified and carries its
// difficulty figures when asked for. An error wrapping ErrFinal cannot be
// fixed by a retry; any other error is the search's (ctx ended, a broken
// checkpoint), with the partial result.
func RunKind(ctx context.Context, kind solver.Kind, req Request, checkpoint func([]byte), log *slog.Logger) (solver.Result, error) {
	lvl, err := kind.Parse(req.Level)
	if err != nil {
		return solver.Result{}, fmt.Errorf("%w: stored level does not parse: %w", ErrFinal, err)
	}
	opts := solver.Options{
		Budget:          solver.BudgetFor(kind, req.Budget),
		CheckpointEvery: req.CheckpointEvery,
		Checkpoint:      checkpoint,
		Resume:          req.Resume,
		Threads:         req.Threads,
	}
	res, err := kind.Solve(ctx, lvl, opts)
	if err != nil && opts.Resume != nil && ctx.Err() == nil {
		// A checkpoint this solver cannot use (written by an older version
		// of it, say) must not fail the job: start the search over.
		log.Warn("checkpoint not usable, search starts over", slog.Any("error", err))
		opts.Resume = nil
		res, err = kind.Solve(ctx, lvl, opts)
	}
	if err != nil {
		return res, err
	}
	if err := kind.Verify(lvl, res); err != nil {
		return res, fmt.Errorf("%w: result failed verification (solver bug): %w", ErrFinal, err)
	}
	res.Difficulty = rate(ctx, log, kind, lvl, res, opts.Budget, req.Playouts, req.PlayoutWorkers)
	return res, nil
}

// rate computes the difficulty figures of a definitive result for kinds
// that rate levels, within what is left of the job's time budget (at most
// RateTimeCap). It never changes the verdict: on any failure or when the
// time runs out the result is stored without figures.
func rate(ctx context.Context, log *slog.Logger, kind solver.Kind, lvl solver.Level, res solver.Result,
	budget solver.Budget, playouts, workers int) json.RawMessage {
	r, ok := kind.(difficulty.Rater)
	if !ok || !res.Verdict.Definitive() || playouts <= 0 {
		return nil
	}
	limit := RateTimeCap
	if budget.MaxMS > 0 {
		limit = min(limit, time.Duration(budget.MaxMS-res.Stats.ElapsedMS)*time.Millisecond)
	}
	if limit <= 0 {
		log.Debug("no budget left for difficulty figures")
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	f, err := r.Rate(rctx, lvl, res, difficulty.Options{Playouts: playouts, Workers: max(1, workers)})
	switch {
	case errors.Is(err, difficulty.ErrNotRated):
		return nil
	case err != nil:
		log.Info("difficulty figures skipped", slog.Any("error", err))
		return nil
	}
	out, err := json.Marshal(f)
	if err != nil {
		log.Warn("difficulty figures not encoded", slog.Any("error", err))
		return nil
	}
	return out
}
