package worker

import (
	"context"
	"errors"
	"log/slog"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/solver"
)

// inChild runs a search in a solve process of the pool, at low CPU
// priority (package solveproc), or in this process when the pool cannot
// start one.
type inChild struct {
	pool *solveproc.Pool
}

func (c inChild) solve(ctx context.Context, log *slog.Logger, kind solver.Kind, req solveproc.Request, checkpoint func([]byte)) outcome {
	res, err := c.pool.Solve(ctx, req, checkpoint)
	if errors.Is(err, solveproc.ErrNoChild) {
		log.Warn("no solve process: the search runs in the worker process", slog.Any("error", err))
		return inProcess{}.solve(ctx, log, kind, req, checkpoint)
	}
	return outcome{res: res, err: err}
}
