package worker

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"time"

	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/difficulty"
)

// rateTimeCap bounds the figures of a job without a time budget.
const rateTimeCap = 30 * time.Second

// rate computes the difficulty figures of a definitive result for kinds
// that rate levels, with the job's number of playouts (nil: the worker's
// default; 0: none), within what is left of the job's time budget (at most
// rateTimeCap). It never changes the verdict: on any failure or when the
// time runs out the result is stored without figures.
func (w *Worker) rate(ctx context.Context, log *slog.Logger, kind solver.Kind, lvl solver.Level, res solver.Result,
	budget solver.Budget, jobPlayouts *int) json.RawMessage {
	r, ok := kind.(difficulty.Rater)
	if !ok || !res.Verdict.Definitive() || w.cfg.DifficultyPlayouts < 0 {
		return nil
	}
	playouts := w.cfg.DifficultyPlayouts // 0: difficulty.DefaultPlayouts
	if jobPlayouts != nil {
		if *jobPlayouts <= 0 {
			return nil
		}
		playouts = *jobPlayouts
	}
	limit := rateTimeCap
	if budget.MaxMS > 0 {
		limit = min(limit, time.Duration(budget.MaxMS-res.Stats.ElapsedMS)*time.Millisecond)
	}
	if limit <= 0 {
		log.Debug("no budget left for difficulty figures")
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	opts := difficulty.Options{Playouts: playouts, Workers: w.playoutWorkers()}
	f, err := r.Rate(rctx, lvl, res, opts)
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

// playoutWorkers is how many goroutines the playouts of one job get: the
// cores that the other jobs solving in this process leave free, at least
// one. An idle worker rates on every core; a busy one does not make its
// solves compete with playouts. The figures do not depend on it (playout
// i has its own seed), only their speed does. Cores, not GOMAXPROCS: the
// worker raises GOMAXPROCS above the CPU count for its slots' sake.
func (w *Worker) playoutWorkers() int {
	others := int(w.solving.Load()) - 1
	return max(1, cores()-max(others, 0))
}

// cores is how many CPUs this process may run on at once.
func cores() int { return min(runtime.NumCPU(), runtime.GOMAXPROCS(0)) }
