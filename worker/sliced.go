package worker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/solver"
)

// InProcessSlice is how long a bundle's job may search in the worker
// process before it starts over in a solve process (when the worker has
// them); the bundle's later jobs then go to solve processes at once. Most
// jobs of a bundle take microseconds, less than the round trip to a child
// (about 40 µs of CPU: end-to-end throughput of tiny levels fell by a
// quarter when every job went to a child), so they stay here; a bundle of
// real searches costs this process at most one slice of nice-0 CPU.
const InProcessSlice = 5 * time.Millisecond

// errMoveToChild stops the search of a bundle's job that ran past
// InProcessSlice in the worker process, to go on in a child.
var errMoveToChild = errors.New("slow: search moves to a solve process")

// sliced runs a bundle's bulk job in this process for up to slice, then,
// if it is still searching, starts it over in a solve process (moved).
type sliced struct {
	pool  *solveproc.Pool
	slice time.Duration
}

func (s sliced) solve(ctx context.Context, log *slog.Logger, kind solver.Kind, req solveproc.Request, checkpoint func([]byte)) outcome {
	here, moveOut := context.WithCancelCause(ctx)
	defer moveOut(nil)
	timer := time.AfterFunc(s.slice, func() { moveOut(errMoveToChild) })
	defer timer.Stop()
	out := inProcess{}.solve(here, log, kind, req, checkpoint)
	// Past the slice the job moves even when the search returned no error:
	// the slice may have cut its difficulty figures short, not its search.
	if errors.Is(out.err, errFinal) || !errors.Is(context.Cause(here), errMoveToChild) || ctx.Err() != nil {
		return out
	}
	log.Debug("job of a bundle past the in-process slice: its search starts over in a solve process")
	out = inChild{pool: s.pool}.solve(ctx, log, kind, req, checkpoint)
	out.moved = true
	return out
}
