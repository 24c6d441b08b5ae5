package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/solver"
)

// InProcessSlice is how much CPU time a bundle's job may search in the
// worker process before it starts over in a solve process (when the worker has
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
	stop := s.watchSlice(moveOut)
	defer stop()
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

// watchSlice moves the search out (errMoveToChild) once it has used its
// slice of CPU time on its own thread, where the kernel reports it, so
// that a search a busy machine keeps waiting is not taken for a long one
// (with a 5 ms slice of the wall clock, the fast jobs of bundles went to
// solve processes one after another under load, and end-to-end throughput
// fell threefold). A search that waits, or works on other goroutines,
// uses little of its own thread, so the wall clock bounds it too, at
// wallSlices slices; where the thread's clock is missing the wall clock
// alone decides, at one slice. The caller's goroutine runs the search;
// stop ends the watch.
func (s sliced) watchSlice(moveOut context.CancelCauseFunc) (stop func()) {
	clock, unlock, ok := lockThreadClock()
	deadline := time.Now().Add(wallSlices * s.slice)
	var (
		mu      sync.Mutex // guards timer (set after AfterFunc returns) and stopped
		timer   *time.Timer
		stopped bool
	)
	check := func() {
		used, measured := clock.used()
		left := time.Until(deadline)
		if !ok || !measured || used >= s.slice || left <= 0 {
			moveOut(errMoveToChild)
			return
		}
		mu.Lock()
		if !stopped {
			timer.Reset(min(s.slice-used, left))
		}
		mu.Unlock()
	}
	mu.Lock()
	timer = time.AfterFunc(s.slice, check)
	mu.Unlock()
	return func() {
		mu.Lock()
		stopped = true
		timer.Stop()
		mu.Unlock()
		unlock()
	}
}

// wallSlices bounds a search in the worker process by the wall clock, in
// slices: 100 ms for the default 5 ms.
const wallSlices = 20
