package worker

import (
	"context"
	"errors"
	"time"
)

// watch is the one goroutine that looks after a running search: it cancels
// the search when the job is canceled in PostgreSQL, taken over by another
// worker, or when this worker shuts down; and for a bundle's job it calls
// onSlow once the search has lasted SlowAfter. It returns when ctx ends,
// reporting what onSlow returned (false if it was not called). Every store
// write it makes happens while the handler waits in the solver, so the two
// never write at once.
//
// When the task's context (taskCtx) ends, the watcher asks PostgreSQL at
// once: a canceled job stops within milliseconds, an asynq timeout stops
// the search, and a cancel that was not meant for this job (see run) is
// ignored.
func (w *Worker) watch(ctx, taskCtx context.Context, cancel context.CancelCauseFunc, id int64, onSlow func() bool) (slow bool) {
	tick := time.NewTicker(w.cfg.CancelPoll)
	defer tick.Stop()
	taskDone := taskCtx.Done()
	var slowC <-chan time.Time
	if onSlow != nil {
		t := time.NewTimer(w.cfg.SlowAfter)
		defer t.Stop()
		slowC = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return slow
		case <-w.stopping:
			cancel(errHandedBack)
			return slow
		case <-slowC:
			slow = onSlow()
		case <-taskDone:
			taskDone = nil
			if errors.Is(taskCtx.Err(), context.DeadlineExceeded) {
				cancel(errTaskEnded)
				return slow
			}
			state, owner, err := w.cfg.Store.JobHolder(ctx, id)
			if err == nil && state.Live() && owner == w.owner.ID {
				continue // not this job's cancel: keep searching
			}
			cancel(errCanceled)
			return slow
		case <-tick.C:
			// A bundle's job stays queued until it turns out slow.
			state, owner, err := w.cfg.Store.JobHolder(ctx, id)
			switch {
			case err != nil:
			case !state.Live():
				cancel(errCanceled)
				return slow
			case owner != w.owner.ID:
				cancel(errTakenOver)
				return slow
			}
		}
	}
}
