package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/puzzled/puzzled/jobtype"
)

// Bundles. The jobs of a batch travel in bundles, one task for the jobs
// whose seq falls in [first, end). A bundle is owned as one (table
// bundles): a worker claims the bundle, not each job, so that a fast job
// of a batch costs one INSERT and one UPDATE, its result (docs/service.md,
// "Bundles"). A batch's bundles are dispatched as one (table
// batch_dispatch): the dispatcher stamps the batch once, not each bundle
// or job, when it hands the tasks of its live bundles to asynq. A job
// leaves its bundle when it is sent solo (MakeSolo); from then on it is
// dispatched and owned alone.

// BundleSize is how many consecutive jobs of a batch one bundle carries:
// the jobs whose seq falls in [k·BundleSize, (k+1)·BundleSize). The queue
// carries each bundle in one task (queue.BundleSize).
const BundleSize = 64

// LiveBatch is a batch whose bundles the dispatcher must make sure asynq
// carries: the first seq of each bundle it still has.
type LiveBatch struct {
	BatchID  int64
	Priority jobtype.Priority
	MaxMS    int64
	Bundles  []int32
}

// ClaimLiveBatches returns up to limit batches whose bundles were never
// handed to asynq, or last handed over before staleBefore, and stamps them
// as handed over now by worker by (as ClaimLiveJobs); a batch with no
// bundle left is dropped from dispatch instead. Of a bulk batch only the
// bundles AdmitBulk admitted are returned. Rows are claimed with SKIP
// LOCKED, as ClaimLiveJobs does.
func (s *Store) ClaimLiveBatches(ctx context.Context, by string, staleBefore time.Time, limit int) ([]LiveBatch, error) {
	rows, err := s.pool.Query(ctx, `
		WITH c AS (
			SELECT batch_id FROM batch_dispatch
			WHERE enqueued_at IS NULL OR enqueued_at < $1
			ORDER BY enqueued_at NULLS FIRST, batch_id
			LIMIT $2
			FOR UPDATE SKIP LOCKED
		), b AS (
			SELECT c.batch_id, count(bu.first_seq) AS live,
				coalesce(array_agg(bu.first_seq ORDER BY bu.first_seq) FILTER (WHERE bu.first_seq IS NOT NULL AND
					(d.priority <> 'bulk' OR d.admit_below IS NULL OR bu.first_seq < d.admit_below)), '{}') AS firsts
			FROM c JOIN batch_dispatch d ON d.batch_id = c.batch_id LEFT JOIN bundles bu ON bu.batch_id = c.batch_id
			GROUP BY c.batch_id
		), gone AS (
			DELETE FROM batch_dispatch d USING b WHERE d.batch_id = b.batch_id AND b.live = 0
		)
		UPDATE batch_dispatch d SET enqueued_at = now(), enqueued_by = nullif($3, '') FROM b
		WHERE d.batch_id = b.batch_id AND b.live > 0
		RETURNING d.batch_id, d.priority, d.max_ms, b.firsts`, staleBefore, limit, by)
	if err != nil {
		return nil, fmt.Errorf("store: claim live batches: %w", err)
	}
	batches, err := pgx.CollectRows(rows, pgx.RowToStructByPos[LiveBatch])
	if err != nil {
		return nil, fmt.Errorf("store: claim live batches: %w", err)
	}
	return batches, nil
}

// redispatch is the SQL that has the batches whose ids the query q
// returns dispatched again at the dispatcher's next round.
func redispatch(q string) string {
	return `UPDATE batch_dispatch SET enqueued_at = NULL WHERE batch_id IN (` + q + `)`
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
	rows, err := s.pool.Query(ctx, claimBundleSQL, batchID, from, to, o.ID, o.DeadAfter)
	if err != nil {
		return nil, fmt.Errorf("store: claim bundle: %w", err)
	}
	jobs, err := collectRunnable(rows)
	if err != nil {
		return nil, fmt.Errorf("store: claim bundle: %w", err)
	}
	return jobs, nil
}

// claimBundleSQL is ClaimBundle's statement: $1 batch, [$2, $3) the seq
// range, $4 the worker, $5 how old a dead worker's beat is.
var claimBundleSQL = `
	WITH b AS (
		UPDATE bundles SET worker_id = $4
		WHERE batch_id = $1 AND first_seq = $2 AND ` + bundleOwnerGone("$4", "$5::interval") + `
		RETURNING batch_id, first_seq, end_seq
	)
	SELECT jobs.id, jobs.kind, l.body, jobs.max_nodes, jobs.max_ms, jobs.difficulty_playouts, jobs.attempts + 1,
		jobs.max_attempts, c.blob, c.seq, coalesce(jobs.error, '')
	FROM b JOIN jobs ON jobs.batch_id = b.batch_id AND jobs.seq >= b.first_seq AND jobs.seq < least(b.end_seq, $3)
	` + levelAndCheckpoint("jobs") + `
	WHERE ` + stillLive + ` AND NOT jobs.solo AND jobs.dup_of IS NULL
	ORDER BY jobs.seq`

// bundleOwnerGone is ownerGone for a bundle row (table bundles).
func bundleOwnerGone(me, dead string) string {
	return `(bundles.worker_id IS NULL OR bundles.worker_id = ` + me + ` OR NOT EXISTS (
		SELECT 1 FROM workers w WHERE w.id = bundles.worker_id AND w.heartbeat_at > now() - ` + dead + `))`
}

// EndBundle is what o does when a bundle's task ends: the bundle row goes
// when no live job is left in it; otherwise o lets go of it and the
// dispatcher hands its batch's bundles out again.
func (s *Store) EndBundle(ctx context.Context, batchID int64, from int32, o Owner) error {
	_, err := s.pool.Exec(ctx, `
		WITH b AS (
			SELECT batch_id, first_seq, end_seq, EXISTS (`+bundleJobs("bundles", "1")+`) AS live
			FROM bundles WHERE batch_id = $1 AND first_seq = $2 AND worker_id = $3
		), gone AS (
			DELETE FROM bundles USING b
			WHERE bundles.batch_id = b.batch_id AND bundles.first_seq = b.first_seq AND NOT b.live
		), again AS (
			`+redispatch("SELECT batch_id FROM b WHERE b.live")+`
		)
		UPDATE bundles SET worker_id = NULL FROM b
		WHERE bundles.batch_id = b.batch_id AND bundles.first_seq = b.first_seq AND b.live`, batchID, from, o.ID)
	if err != nil {
		return fmt.Errorf("store: end bundle: %w", err)
	}
	return nil
}
