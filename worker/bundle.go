package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// bundleFlushEvery bounds how long a finished job of a bundle waits for its
// result to be stored with the next ones.
const bundleFlushEvery = time.Second

// handleBundle runs the jobs of a bundle (queue.BundleSize jobs of one
// batch) one after another. The jobs are read without a write; a job that
// finishes within queue.SlowAfter goes from queued to done in one
// FinishJobs with the others. A slow job is marked running (its attempt
// counts from then on) and the rest of the bundle goes solo, so that other
// workers take it while this one searches; so does the rest of a bundle
// that has run for queue.SlowAfter in all. Anything unusual (a retried
// bundle, an error, shutdown) sends the jobs left solo too, where
// attempts, errors and checkpoints are handled one job at a time by
// handleJob.
func (w *Worker) handleBundle(ctx context.Context, p queue.Payload) error {
	log := w.cfg.Logger.With(slog.Int64("batch_id", p.BatchID), slog.Int("bundle", int(p.Bundle)))
	from, to := p.Seqs()
	jobs, err := w.cfg.Store.FetchBundle(ctx, p.BatchID, from, to)
	if err != nil {
		return err
	}
	if n, _ := asynq.GetRetryCount(ctx); n > 0 {
		// An earlier delivery failed or its worker died mid-bundle: which
		// job was to blame is unknown, so each goes on alone.
		log.Warn("retried bundle split into solo jobs", slog.Int("jobs", len(jobs)))
		return w.cfg.Store.MakeSolo(ctx, jobIDs(jobs))
	}

	var (
		pending      []store.Finish
		pendingKinds []string
		since        time.Time
	)
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		// Stored even when the task's context ended: the work is done.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
		defer cancel()
		if _, err := w.cfg.Store.FinishJobs(fctx, pending); err != nil {
			return err
		}
		if w.cfg.Observer != nil {
			for i, f := range pending {
				w.cfg.Observer.Solved(pendingKinds[i], f.Result.Verdict,
					time.Duration(f.Result.Stats.ElapsedMS)*time.Millisecond, f.Result.Stats.Nodes)
			}
		}
		pending, pendingKinds = pending[:0], pendingKinds[:0]
		return nil
	}
	// handBack stores what is done and sends the jobs from i on solo.
	handBack := func(i int, cause error) error {
		err := errors.Join(flush(), w.cfg.Store.MakeSolo(context.WithoutCancel(ctx), jobIDs(jobs[i:])))
		if err != nil {
			return errors.Join(cause, err)
		}
		return cause
	}

	start := time.Now()
	for i, job := range jobs {
		select {
		case <-w.stopping:
			log.Info("bundle handed back at shutdown", slog.Int("jobs_left", len(jobs)-i))
			return handBack(i, fmt.Errorf("%w: %w", errHandedBack, asynq.RevokeTask))
		default:
		}
		if i > 0 && time.Since(start) > queue.SlowAfter {
			// Not one slow job but many middling ones: running them one
			// after another would keep the other slots idle.
			if err := w.cfg.Store.MakeSolo(ctx, jobIDs(jobs[i:])); err != nil {
				log.Warn("rest of a slow bundle not sent solo", slog.Any("error", err))
			} else {
				log.Debug("slow bundle: rest sent solo", slog.Int("jobs", len(jobs)-i))
				break
			}
		}
		jlog := log.With(slog.Int64("job_id", job.ID), slog.String("kind", job.Kind))
		if job.Attempts > job.MaxAttempts {
			if err := w.cfg.Store.MakeSolo(ctx, []int64{job.ID}); err != nil {
				return handBack(i, err)
			}
			continue
		}

		// Past SlowAfter the job is marked running and the rest of the
		// bundle goes solo; the timer's work is done before we go on.
		slowDone := make(chan bool, 1)
		timer := time.AfterFunc(queue.SlowAfter, func() { slowDone <- w.turnSlow(ctx, jlog, job.ID, jobs[i+1:]) })
		res, version, err := w.run(ctx, jlog, job)
		split := false
		if !timer.Stop() {
			split = <-slowDone
		}

		switch {
		case err == nil:
			pending = append(pending, store.Finish{JobID: job.ID, SolverVersion: version, Result: res})
			pendingKinds = append(pendingKinds, job.Kind)
			if len(pending) == 1 {
				since = time.Now()
			}
		case errors.Is(err, errHandedBack):
			if rerr := w.cfg.Store.RequeueJob(context.WithoutCancel(ctx), job.ID); rerr != nil {
				err = errors.Join(err, rerr)
			}
			jlog.Info("bundle handed back at shutdown", slog.Int("jobs_left", len(jobs)-i))
			return handBack(i, fmt.Errorf("%w: %w", err, asynq.RevokeTask))
		case errors.Is(err, errCanceled):
			jlog.Info("job canceled while running")
		case errors.Is(err, errFinal):
			jlog.Error("job failed", slog.Any("error", err))
			if ferr := w.cfg.Store.FailJob(ctx, job.ID, err.Error(), true); ferr != nil {
				return handBack(i, ferr)
			}
		case ctx.Err() != nil:
			// The task's context ended (timeout, lost lease): asynq retries
			// the bundle, and the retry sends the jobs left solo.
			return handBack(i, err)
		default:
			jlog.Warn("attempt failed, job goes solo to retry", slog.Any("error", err))
			err = errors.Join(w.cfg.Store.FailJob(ctx, job.ID, err.Error(), false), w.cfg.Store.MakeSolo(ctx, []int64{job.ID}))
			if err != nil {
				return handBack(i, err)
			}
		}
		if split {
			break
		}
		if len(pending) > 0 && time.Since(since) > bundleFlushEvery {
			if err := flush(); err != nil {
				return handBack(i+1, err)
			}
		}
	}
	return flush()
}

// turnSlow marks a bundle's job running once its search has lasted
// queue.SlowAfter and sends the jobs after it solo. It reports whether they
// went (if not, the bundle goes on with them after this job).
func (w *Worker) turnSlow(ctx context.Context, log *slog.Logger, id int64, rest []store.RunnableJob) bool {
	if err := w.cfg.Store.MarkRunning(ctx, id); err != nil {
		log.Warn("slow job not marked running", slog.Any("error", err))
	}
	if len(rest) == 0 {
		return false
	}
	if err := w.cfg.Store.MakeSolo(ctx, jobIDs(rest)); err != nil {
		log.Warn("rest of a slow bundle not sent solo", slog.Any("error", err))
		return false
	}
	log.Debug("slow job: rest of the bundle sent solo", slog.Int("jobs", len(rest)))
	return true
}

func jobIDs(jobs []store.RunnableJob) []int64 {
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}
