package worker

import (
	"context"
	"log/slog"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/solver"
)

// inProcess runs a search in the worker process, at its priority:
// interactive jobs, and every job of a worker without solve processes.
type inProcess struct{}

func (inProcess) solve(ctx context.Context, log *slog.Logger, kind solver.Kind, req solveproc.Request, checkpoint func([]byte)) outcome {
	res, err := solveproc.RunKind(ctx, kind, req, checkpoint, log)
	return outcome{res: res, err: err}
}
