package worker

import (
	"context"
	"log/slog"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/solver"
)

// strategy is one way of running a job's search: in this process
// (inProcess), in a solve process at low CPU priority (inChild), or here
// for a slice first (sliced), one file each. Worker.run picks one per job
// (strategyFor) and reads every outcome the same way, so that a new way of
// running a search is a new type, not another flag in run (the shape of
// River's inline, async and batch completers).
type strategy interface {
	// solve searches req, a level of kind, and verifies the result; ctx
	// ends the search early (its cause says why). checkpoint receives the
	// search's checkpoints.
	solve(ctx context.Context, log *slog.Logger, kind solver.Kind, req solveproc.Request, checkpoint func([]byte)) outcome
}

// outcome is what a strategy's search gave.
type outcome struct {
	res solver.Result // verified when err is nil; else the partial result
	err error
	// moved: the search ran past InProcessSlice in this process and
	// started over in a solve process (sliced).
	moved bool
}

// strategyFor picks how a job runs. Interactive jobs, and every job of a
// worker without solve processes, search in this process; bulk jobs in a
// solve process, except a bundle's job while the bundle stays fast (here),
// which gets a slice of this process first (see InProcessSlice).
func (w *Worker) strategyFor(ctx context.Context, here bool) strategy {
	switch {
	case w.cfg.Processes == nil || isInteractive(ctx):
		return inProcess{}
	case here:
		return sliced{pool: w.cfg.Processes, slice: w.cfg.InProcessSlice}
	default:
		return inChild{pool: w.cfg.Processes}
	}
}
