package queue

import (
	"context"
	"log/slog"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/store"
)

// Submit is the submit protocol of one job, in one place: store the job
// (PostgreSQL is the source of truth; a level with a definitive result is
// done at once), hand an interactive job to asynq so that it skips the
// dispatcher's poll, and record that it was handed (a bulk job waits for
// the dispatcher's admission). If Redis is down the
// job is safe in PostgreSQL, never marked enqueued, and the dispatcher
// enqueues it later: the error is logged, not returned. The error returned
// is CreateJob's, unwrapped, for the caller to map to a status.
func Submit(ctx context.Context, st *store.Store, c *Client, p store.JobParams, log *slog.Logger) (store.Job, error) {
	if p.Priority == jobtype.Interactive {
		// Before the job exists, so that bulk searches yield while it is
		// stored too; in parallel, since the notice is best effort.
		go func() {
			if err := c.NotifyInteractive(context.WithoutCancel(ctx)); err != nil {
				log.Debug("interactive notice lost", slog.Any("error", err))
			}
		}()
	}
	job, err := st.CreateJob(ctx, p)
	if err != nil || job.State != jobtype.Queued {
		return job, err
	}
	if job.Priority == jobtype.Bulk {
		// Bulk work reaches asynq through the dispatcher's admission
		// (admit.go), which shares the workers between projects.
		return job, nil
	}
	if _, err := c.Enqueue(ctx, job.ID, job.Priority, job.Budget.MaxMS); err != nil {
		log.Warn("enqueue failed; the dispatcher will retry", slog.Int64("job_id", job.ID), slog.Any("error", err))
	} else if err := st.MarkEnqueued(ctx, job.ID); err != nil {
		log.Warn("mark enqueued failed", slog.Int64("job_id", job.ID), slog.Any("error", err))
	}
	return job, nil
}
