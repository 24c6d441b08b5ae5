package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/puzzled/puzzled/jobtype"
)

// Bundles. The jobs of a batch travel in bundles, one task for the jobs
// whose seq falls in [first, end) (the queue decides the size). A bundle
// is dispatched and owned as one (table bundles): the dispatcher stamps
// the bundle, not its jobs, when it hands the task to asynq, and a worker
// claims the bundle, not each job, so that a fast job of a batch costs one
// INSERT and one UPDATE, its result (docs/service.md, "Bundles"). A job
// leaves its bundle when it is sent solo (MakeSolo); from then on it is
// dispatched and owned alone.

// BundleSize is how many consecutive jobs of a batch one bundle carries:
// the jobs whose seq falls in [k·BundleSize, (k+1)·BundleSize). The queue
// carries each bundle in one task (queue.BundleSize).
const BundleSize = 64

// LiveBundle is a bundle the dispatcher must make sure asynq carries.
type LiveBundle struct {
	BatchID  int64
	FirstSeq int32
	EndSeq   int32
	Priority jobtype.Priority
	MaxMS    int64
}

// ClaimLiveBundles returns up to limit bundles never handed to asynq, or
// last handed over before staleBefore, and stamps them as handed over now.
// A stale bundle with no live job left is deleted instead (its worker
// died after the last job, or its batch was canceled). Rows are claimed
// with SKIP LOCKED, as ClaimLiveJobs does.
func (s *Store) ClaimLiveBundles(ctx context.Context, staleBefore time.Time, limit int) ([]LiveBundle, error) {
	rows, err := s.pool.Query(ctx, `
		WITH c AS (
			SELECT batch_id, first_seq, end_seq, enqueued_at IS NULL AS fresh FROM bundles
			WHERE enqueued_at IS NULL OR enqueued_at < $1
			ORDER BY enqueued_at NULLS FIRST, batch_id, first_seq
			LIMIT $2
			FOR UPDATE SKIP LOCKED
		), checked AS (
			SELECT c.batch_id, c.first_seq, c.fresh OR EXISTS (`+bundleJobs("c", "1")+`) AS live FROM c
		), gone AS (
			DELETE FROM bundles b USING checked k
			WHERE b.batch_id = k.batch_id AND b.first_seq = k.first_seq AND NOT k.live
		)
		UPDATE bundles b SET enqueued_at = now() FROM checked k
		WHERE b.batch_id = k.batch_id AND b.first_seq = k.first_seq AND k.live
		RETURNING b.batch_id, b.first_seq, b.end_seq, b.priority, b.max_ms`, staleBefore, limit)
	if err != nil {
		return nil, fmt.Errorf("store: claim live bundles: %w", err)
	}
	bundles, err := pgx.CollectRows(rows, pgx.RowToStructByPos[LiveBundle])
	if err != nil {
		return nil, fmt.Errorf("store: claim live bundles: %w", err)
	}
	return bundles, nil
}

// bundleJobs is a SELECT of the live jobs that bundle row b (an alias)
// still carries: in its seq range, neither solo nor waiting on a copy of
// their level. cols are the selected columns.
func bundleJobs(b, cols string) string {
	return `SELECT ` + cols + ` FROM jobs WHERE jobs.batch_id = ` + b + `.batch_id
		AND jobs.seq >= ` + b + `.first_seq AND jobs.seq < ` + b + `.end_seq
		AND ` + stillLive + ` AND NOT jobs.solo AND jobs.dup_of IS NULL`
}

// ClaimBundle claims the bundle of batch batchID whose jobs are seq in
// [from, to) for o, unless another live worker holds it, and returns its
// jobs in seq order: live jobs that are neither solo nor waiting on a copy
// of their level (dup_of). Nothing is written to the jobs: a bundle's fast
// jobs go from queued to done in one FinishJobs, and only a slow one is
// marked running (MarkRunning). Attempts counts the coming one. A bundle
// that is gone (ended, canceled) has no jobs.
func (s *Store) ClaimBundle(ctx context.Context, batchID int64, from, to int32, o Owner) ([]RunnableJob, error) {
	rows, err := s.pool.Query(ctx, `
		WITH b AS (
			UPDATE bundles SET worker_id = $4
			WHERE batch_id = $1 AND first_seq = $2 AND `+bundleOwnerGone("$4", "$5::interval")+`
			RETURNING batch_id, first_seq, end_seq
		)
		SELECT jobs.id, jobs.kind, l.body, jobs.max_nodes, jobs.max_ms, jobs.difficulty_playouts, jobs.attempts + 1,
			jobs.max_attempts, c.blob, c.seq, coalesce(jobs.error, '')
		FROM b JOIN jobs ON jobs.batch_id = b.batch_id AND jobs.seq >= b.first_seq AND jobs.seq < least(b.end_seq, $3)
		JOIN levels l ON l.hash = jobs.level_hash
		LEFT JOIN checkpoints c ON c.job_id = jobs.id
		WHERE `+stillLive+` AND NOT jobs.solo AND jobs.dup_of IS NULL
		ORDER BY jobs.seq`, batchID, from, to, o.ID, o.DeadAfter)
	if err != nil {
		return nil, fmt.Errorf("store: claim bundle: %w", err)
	}
	jobs, err := collectRunnable(rows)
	if err != nil {
		return nil, fmt.Errorf("store: claim bundle: %w", err)
	}
	return jobs, nil
}

// bundleOwnerGone is ownerGone for a bundle row (table bundles).
func bundleOwnerGone(me, dead string) string {
	return `(bundles.worker_id IS NULL OR bundles.worker_id = ` + me + ` OR NOT EXISTS (
		SELECT 1 FROM workers w WHERE w.id = bundles.worker_id AND w.heartbeat_at > now() - ` + dead + `))`
}

// EndBundle is what o does when a bundle's task ends: the bundle row goes
// when no live job is left in it; otherwise o lets go of it and the
// dispatcher hands it out again.
func (s *Store) EndBundle(ctx context.Context, batchID int64, from int32, o Owner) error {
	_, err := s.pool.Exec(ctx, `
		WITH b AS (
			SELECT batch_id, first_seq, end_seq, EXISTS (`+bundleJobs("bundles", "1")+`) AS live
			FROM bundles WHERE batch_id = $1 AND first_seq = $2 AND worker_id = $3
		), gone AS (
			DELETE FROM bundles USING b
			WHERE bundles.batch_id = b.batch_id AND bundles.first_seq = b.first_seq AND NOT b.live
		)
		UPDATE bundles SET worker_id = NULL, enqueued_at = NULL FROM b
		WHERE bundles.batch_id = b.batch_id AND bundles.first_seq = b.first_seq AND b.live`, batchID, from, o.ID)
	if err != nil {
		return fmt.Errorf("store: end bundle: %w", err)
	}
	return nil
}
