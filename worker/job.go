package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/store"
)

// handleJob runs a task that carries one job.
func (w *Worker) handleJob(ctx context.Context, id int64) error {
	log := w.cfg.Logger.With(slog.Int64("job_id", id))
	if !w.hold(id) {
		log.Info("task dropped: this worker is running the job already")
		return nil
	}
	defer w.release(id)
	w.claims.RLock()
	start, err := w.starts.do(ctx, id)
	w.claims.RUnlock()
	if err != nil {
		return err
	}
	if !start.ok {
		if w.heldElsewhere(ctx, log, id) {
			// Not done with: the holder may let the job go (a run whose
			// result write failed does), and then no task would be left
			// to run it until the dispatcher's stale check.
			return fmt.Errorf("job %d: %w", id, errHeldElsewhere)
		}
		return nil
	}
	job := start.job
	log = log.With(slog.String("kind", job.Kind), slog.Int("attempt", int(job.Attempts)))
	if job.Attempts > job.MaxAttempts {
		return w.giveUp(ctx, log, job)
	}
	a := w.run(ctx, log, job, nil, false)
	act, err := w.settle(ctx, log, a, false)
	if err != nil {
		return errors.Join(a.err, err)
	}
	if act == actStore {
		return w.store(ctx, log, []attempt{a})
	}
	return taskError(act, a.err)
}

// errHeldElsewhere is a task's error when another live worker holds its
// job: asynq retries the task later (queue.RetryDelay).
var errHeldElsewhere = errors.New("held by another live worker; the task is retried later")

// heldElsewhere says why a task's job did not start, and reports whether
// it is because another live worker holds it.
func (w *Worker) heldElsewhere(ctx context.Context, log *slog.Logger, id int64) bool {
	state, owner, err := w.cfg.Store.JobHolder(ctx, id)
	switch {
	case err != nil:
		log.Debug("task for a missing job dropped", slog.Any("error", err))
	case state.Live():
		log.Info("task retried later: the job is held by another live worker", slog.String("holder", owner))
		return true
	default:
		log.Debug("task for a finished or canceled job dropped", slog.String("state", string(state)))
	}
	return false
}

// giveUp fails a job whose attempts are exhausted.
func (w *Worker) giveUp(ctx context.Context, log *slog.Logger, job store.RunnableJob) error {
	log.Warn("job failed: attempts exhausted")
	last := job.LastError
	if last == "" {
		last = "none recorded (the worker died during the attempt?)"
	}
	msg := fmt.Sprintf("gave up after %d attempts; last error: %s", job.MaxAttempts, last)
	return errors.Join(fenceLogged(log, w.cfg.Store.FailJob(ctx, w.runOf(job), job.ID, msg, true)), asynq.SkipRetry)
}
