package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/store"
)

// action is what becomes of a job after an attempt (see settle).
type action int

const (
	actStore     action = iota // a verified result: store it (Worker.store)
	actHandBack                // this worker shuts down: the job goes back to the queue, resuming first
	actTakenOver               // another worker holds the job now: let go, write nothing
	actCancel                  // canceled by a user: nothing more to do
	actFail                    // a failure no retry can fix: the job fails
	actRetry                   // a failure: recorded, the job is tried again
	actTaskEnded               // the task's context ended: recorded, asynq retries the task
)

// classify maps an attempt's error to its action.
func classify(err error) action {
	switch {
	case err == nil:
		return actStore
	case errors.Is(err, errHandedBack):
		return actHandBack
	case errors.Is(err, errTakenOver):
		return actTakenOver
	case errors.Is(err, errCanceled):
		return actCancel
	case errors.Is(err, errFinal):
		return actFail
	case errors.Is(err, errTaskEnded):
		return actTaskEnded
	default:
		return actRetry
	}
}

// settle is the one place where an attempt's outcome becomes the job's
// next state, for a solo job and for a bundle's job alike (the shape of
// asynq's handleFailedMessage and River's JobCompleter). It makes every
// write but storing a result, which the caller does with Worker.store so
// that a bundle's results go in one statement, and logs what happened. It
// returns the action and the error of its writes. inBundle changes one
// thing: a job to retry goes solo (its own task retries it) instead of
// failing the bundle's task.
func (w *Worker) settle(ctx context.Context, log *slog.Logger, a attempt, inBundle bool) (action, error) {
	id, run := a.job.ID, w.runOf(a.job)
	act := classify(a.err)
	switch act {
	case actStore:
		return act, nil
	case actHandBack:
		log.Info("job handed back at shutdown")
		return act, fenceLogged(log, w.cfg.Store.RequeueJob(context.WithoutCancel(ctx), run, id))
	case actTakenOver:
		log.Warn("job taken over by another worker (this worker's heartbeat was late); this run stops")
		return act, nil
	case actCancel:
		log.Info("job canceled while running")
		return act, nil
	case actFail:
		log.Error("job failed", slog.Any("error", a.err))
		return act, fenceLogged(log, w.cfg.Store.FailJob(ctx, run, id, a.err.Error(), true))
	case actTaskEnded:
		if inBundle {
			return act, nil // asynq retries the bundle, and the retry sends the jobs left solo
		}
	}
	// actRetry, and a solo job's actTaskEnded.
	err := fenceLogged(log, w.cfg.Store.FailJob(context.WithoutCancel(ctx), run, id, a.err.Error(), false))
	if inBundle {
		log.Warn("attempt failed, job goes solo to retry", slog.Any("error", a.err))
		return act, errors.Join(err, fenceLogged(log, w.cfg.Store.MakeSolo(ctx, w.owner.ID, []int64{id})))
	}
	log.Warn("attempt failed, will retry", slog.Any("error", a.err))
	return act, err
}

// taskError is what a solo job's task returns to asynq after act.
func taskError(act action, attemptErr error) error {
	switch act {
	case actHandBack:
		// Revoking deletes the task, so that no retry of it runs; the job,
		// queued again, is enqueued by any worker's dispatcher at once in
		// the resumed queue (enqueued_at is NULL).
		return fmt.Errorf("%w: %w", attemptErr, asynq.RevokeTask)
	case actFail:
		return asynq.SkipRetry
	case actRetry, actTaskEnded:
		return attemptErr
	}
	return nil
}

// store is the one way results are written: through the finishes write
// merger, with the results of other handlers, then told to the Observer.
// Results are stored even when the task's context ended: the work is done.
func (w *Worker) store(ctx context.Context, log *slog.Logger, done []attempt) error {
	if len(done) == 0 {
		return nil
	}
	fs := make([]store.Finish, len(done))
	for i, a := range done {
		fs[i] = store.Finish{JobID: a.job.ID, Run: w.runOf(a.job), SolverVersion: a.version, Result: a.res}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
	defer cancel()
	replies, err := w.finishes.doAll(sctx, fs)
	// A write that failed for want of a connection (a full connection
	// table, a restarting server) is tried again until flushTimeout: the
	// work is done, and a retried task would do it again.
	for wait := 100 * time.Millisecond; err != nil && store.Transient(err) && sctx.Err() == nil; wait = min(2*wait, 2*time.Second) {
		log.Warn("results not stored yet; retrying", slog.Int("jobs", len(fs)), slog.Duration("in", wait), slog.Any("error", err))
		select {
		case <-sctx.Done():
		case <-time.After(wait):
			replies, err = w.finishes.doAll(sctx, fs)
		}
	}
	if err != nil {
		// The task is retried (the results are computed again), but the
		// operator learns that a write failed and why.
		log.Warn("results not stored", slog.Int("jobs", len(fs)), slog.Int64("first_job_id", fs[0].JobID), slog.Any("error", err))
		return err
	}
	var fenced []int64
	for i, a := range done {
		if replies[i].fenced {
			fenced = append(fenced, a.job.ID)
			continue
		}
		res := a.res
		if w.cfg.Observer != nil {
			w.cfg.Observer.Solved(a.job.Kind, res.Verdict, time.Duration(res.Stats.ElapsedMS)*time.Millisecond, res.Stats.Nodes)
		}
		log.Debug("job done", slog.Int64("job_id", a.job.ID), slog.String("verdict", string(res.Verdict)),
			slog.Int64("nodes", res.Stats.Nodes), slog.Int64("elapsed_ms", res.Stats.ElapsedMS), slog.Bool("stored", replies[i].stored))
	}
	if len(fenced) > 0 {
		// Not an error of the task: the job is another run's now, and
		// that run stores its own result.
		log.Warn("results refused: a newer run holds the jobs (this run was fenced)", slog.Any("job_ids", fenced))
	}
	return nil
}

// runOf is this worker's run of job (see store.Run).
func (w *Worker) runOf(job store.RunnableJob) store.Run { return store.RunOf(w.owner.ID, job) }

// fenceLogged logs a write refused because this run no longer holds its
// job (store.ErrFenced) and drops it: the job is another run's now, which
// is not this task's failure. Any other error is returned.
func fenceLogged(log *slog.Logger, err error) error {
	if errors.Is(err, store.ErrFenced) {
		log.Warn("write refused: a newer run holds the job (this run was fenced)", slog.Any("error", err))
		return nil
	}
	return err
}
