package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/jobtype"
)

// LiveJob is a job the dispatcher must make sure asynq carries.
type LiveJob struct {
	ID       int64
	Priority jobtype.Priority
	MaxMS    int64
	BatchID  int64 // 0: not in a batch
	Seq      int32 // position in the batch
	Solo     bool  // travels in a task of its own even in a batch
	// Recoveries counts how often the job was taken back from a worker
	// (handed back at shutdown, taken over from a dead worker); a job
	// with recoveries resumes ahead of jobs never started.
	Recoveries int32
}

// ClaimLiveJobs returns up to limit queued or running jobs that travel
// alone (outside a batch, or sent solo; a bundle's jobs are dispatched as
// their bundle, see ClaimLiveBundles) and were never handed to asynq, or
// last checked before staleBefore (a bulk job never handed over waits for
// AdmitBulk instead), and stamps them as checked now by
// worker by ("": a dispatcher outside a worker). Rows are claimed with SKIP
// LOCKED, so several dispatchers (one per worker process) share the work
// without overlap.
func (s *Store) ClaimLiveJobs(ctx context.Context, by string, staleBefore time.Time, limit int) ([]LiveJob, error) {
	rows, err := s.pool.Query(ctx, `
		WITH c AS (
			SELECT id FROM jobs
			WHERE `+travelsAlone+` AND NOT `+waitsForAdmission+`
				AND (enqueued_at IS NULL OR enqueued_at < $1)
			ORDER BY enqueued_at NULLS FIRST, id
			LIMIT $2
			FOR UPDATE SKIP LOCKED
		)
		UPDATE jobs j SET enqueued_at = now(), enqueued_by = nullif($3, '') FROM c WHERE j.id = c.id
		RETURNING `+liveJobColumns, staleBefore, limit, by)
	if err != nil {
		return nil, fmt.Errorf("store: claim live jobs: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[LiveJob])
	if err != nil {
		return nil, fmt.Errorf("store: claim live jobs: %w", err)
	}
	return jobs, nil
}

// travelsAlone is the condition that a job is live and travels in a task
// of its own (outside a batch, or sent solo), not as its bundle or as a
// copy waiting on its level (the predicate of jobs_live and jobs_waiting).
const travelsAlone = `state IN ` + liveStates + ` AND dup_of IS NULL AND (batch_id IS NULL OR solo)`

// liveJobColumns are the columns of a LiveJob, in order, of jobs j.
const liveJobColumns = `j.id, j.priority, coalesce(j.max_ms, 0), coalesce(j.batch_id, 0), coalesce(j.seq, 0), j.solo, j.recoveries`

// Unstamp takes back the enqueued stamp of jobs and batches whose task
// could not be handed to asynq after ClaimLiveJobs, AdmitBulk or
// ClaimLiveBatches stamped them, so that the dispatcher's next round tries
// them first rather than after Stale (a job stays admitted: handedLongAgo).
func (s *Store) Unstamp(ctx context.Context, jobs, batches []int64) error {
	if _, err := s.pool.Exec(ctx, `
		WITH j AS (
			UPDATE jobs SET enqueued_at = `+handedLongAgo+` WHERE id = ANY ($1) AND enqueued_at IS NOT NULL
		)
		`+redispatch("SELECT unnest($2::bigint[])"), jobs, batches); err != nil {
		return fmt.Errorf("store: unstamp: %w", err)
	}
	return nil
}

// MarkEnqueued records that a job's task was just handed to asynq, so the
// dispatcher leaves it alone until it goes stale.
func (s *Store) MarkEnqueued(ctx context.Context, id int64) error {
	if _, err := s.pool.Exec(ctx, `UPDATE jobs SET enqueued_at = now() WHERE id = $1`, id); err != nil {
		return fmt.Errorf("store: mark enqueued: %w", err)
	}
	return nil
}
