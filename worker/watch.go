package worker

import (
	"context"
	"errors"
	"time"
)

// watchDelay is how long a search runs before its watcher starts. Most
// jobs of a bundle end within microseconds, and a goroutine of their own
// (with its ticker, its timer and the switches to and from it) cost the
// worker more than their search: the worker's CPU per job of `puzzled
// bench` (b) fell from 109 to 97 µs (medians of three) when the watcher
// began to wait for this. A cancel, a takeover or a shutdown reaches a
// search at most this much later.
const watchDelay = 2 * time.Millisecond

// watchSoon starts watch for a search once it has run for watchDelay.
// wait, called once the search has ended (and ctx with it), returns what
// watch did: false if it never started.
func (w *Worker) watchSoon(ctx, taskCtx context.Context, cancel context.CancelCauseFunc, id int64, onSlow func() bool) (wait func() (slow bool)) {
	started := time.Now()
	result := make(chan bool, 1)
	t := time.AfterFunc(watchDelay, func() { result <- w.watch(ctx, taskCtx, cancel, id, onSlow, started) })
	return func() bool {
		if t.Stop() {
			return false
		}
		return <-result
	}
}

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
func (w *Worker) watch(ctx, taskCtx context.Context, cancel context.CancelCauseFunc, id int64, onSlow func() bool, started time.Time) (slow bool) {
	tick := time.NewTicker(w.cfg.CancelPoll)
	defer tick.Stop()
	taskDone := taskCtx.Done()
	var slowC <-chan time.Time
	if onSlow != nil {
		t := time.NewTimer(w.cfg.SlowAfter - time.Since(started))
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
