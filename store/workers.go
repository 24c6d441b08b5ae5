package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/jobtype"
)

// Worker liveness. Every `puzzled work` process beats in the workers table;
// a live job records its owner (jobs.worker_id) and the owner's beat
// decides whether the job may start elsewhere: a job held by a live worker
// is never started a second time, whatever asynq or Redis say, and a dead
// worker's jobs are taken over within seconds (TakeOverJobs).

// ownerGone is the SQL condition "this job may be claimed by worker $me":
// no owner, $me already, or an owner whose beat is older than $dead. It
// names the job table jobs and expects $me and $dead among the parameters
// under the given numbers.
func ownerGone(me, dead string) string {
	return `(jobs.worker_id IS NULL OR jobs.worker_id = ` + me + ` OR NOT EXISTS (
		SELECT 1 FROM workers w WHERE w.id = jobs.worker_id AND w.heartbeat_at > now() - ` + dead + `))`
}

// Beat records that worker id is alive, registering it on its first beat.
// A beat that follows a gap longer than gap (PostgreSQL was out of reach)
// restarts the worker's run of unbroken beats, see TakeOverJobs.
func (s *Store) Beat(ctx context.Context, id, host string, pid int, gap time.Duration) error {
	const upsert = `
		INSERT INTO workers (id, host, pid) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(),
			beating_since = CASE WHEN workers.heartbeat_at < now() - $4::interval THEN now()
				ELSE workers.beating_since END`
	var err error
	if s.beats != nil {
		err = s.beats.exec(ctx, upsert, id, host, pid, gap)
	} else {
		_, err = s.pool.Exec(ctx, upsert, id, host, pid, gap)
	}
	if err != nil {
		return fmt.Errorf("store: heartbeat of worker %s: %w", id, err)
	}
	return nil
}

// RemoveWorker deletes a worker that stopped cleanly, and the rows of
// workers dead for an hour.
func (s *Store) RemoveWorker(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM workers WHERE id = $1 OR heartbeat_at < now() - interval '1 hour'`, id)
	if err != nil {
		return fmt.Errorf("store: remove worker %s: %w", id, err)
	}
	return nil
}

// dissolvedBundleJobs is the WHERE clause of the live, still bundled jobs of
// the bundles b that a statement's CTE bundle deleted (TakeOverJobs,
// RecoverLost). EXISTS is a one-time filter: with no bundle dissolved
// (nearly always) nothing is read. Without it the planner, expecting few
// live jobs, read all of jobs to join them to the empty bundle: 30 ms a
// dispatcher round at 41,000 jobs.
const dissolvedBundleJobs = `EXISTS (SELECT 1 FROM bundle)
				AND jobs.batch_id = b.batch_id AND jobs.seq >= b.first_seq AND jobs.seq < b.end_seq
				AND ` + stillLive + ` AND NOT jobs.solo AND jobs.dup_of IS NULL`

// takeOverSQL is TakeOverJobs' statement: $1 the caller, $2 dead, $3 stale.
const takeOverSQL = `
		WITH judge AS (
			SELECT 1 FROM workers me WHERE me.id = $1
				AND me.heartbeat_at > now() - $2::interval AND me.beating_since < now() - $2::interval
		), gone AS MATERIALIZED (
			-- Usually empty: the EXISTS below is then a one-time filter,
			-- and neither UPDATE reads a row.
			SELECT w.id FROM workers w, judge
			WHERE w.heartbeat_at <= now() - $2::interval AND w.heartbeat_at > now() - $2::interval - $3::interval
		), unstamped AS (
			-- A job with an owner ran, so its task was made; and a row
			-- must not be updated by two parts of one statement (alone).
			UPDATE jobs SET enqueued_at = ` + handedLongAgo + `
			WHERE EXISTS (SELECT 1 FROM gone) AND enqueued_by IN (SELECT id FROM gone) AND worker_id IS NULL
				AND enqueued_at > now() - $3::interval AND state IN ` + liveStates + ` AND dup_of IS NULL
		), unstamped_batches AS (
			UPDATE batch_dispatch SET enqueued_at = NULL
			WHERE EXISTS (SELECT 1 FROM gone) AND enqueued_by IN (SELECT id FROM gone)
				AND enqueued_at > now() - $3::interval
		), bundle AS (
			DELETE FROM bundles b
			WHERE EXISTS (SELECT 1 FROM judge) AND b.worker_id IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = b.worker_id AND w.heartbeat_at > now() - $2::interval)
			RETURNING b.batch_id, b.first_seq, b.end_seq
		), bundled AS (
			UPDATE jobs SET worker_id = NULL, solo = true, enqueued_at = NULL, recoveries = recoveries + 1
			FROM bundle b
			WHERE ` + dissolvedBundleJobs + `
			RETURNING jobs.id
		), alone AS (
			UPDATE jobs SET worker_id = NULL, solo = true, enqueued_at = NULL, recoveries = recoveries + 1
			WHERE EXISTS (SELECT 1 FROM judge) AND worker_id IS NOT NULL AND state IN ` + liveStates + `
				AND (batch_id IS NULL OR solo)
				AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = jobs.worker_id AND w.heartbeat_at > now() - $2::interval)
			RETURNING id
		)
		SELECT id FROM bundled UNION ALL SELECT id FROM alone`

// TakeOverJobs releases the live jobs held by workers whose last beat is
// older than dead: each goes solo, its task id changes (recoveries) so that
// a new task is not mistaken for the dead worker's one still active in
// asynq, and the dispatcher enqueues it at once in the resumed queue. A
// dead worker's bundles are dissolved the same way: their live jobs go
// solo, resumed. The jobs and batches that a worker dead for less than
// stale had stamped as handed to asynq in its last stale (ClaimLiveJobs,
// ClaimLiveBatches) are unstamped, so that the next round hands them over
// again: its dispatcher may have died between its stamp and its enqueues,
// leaving them with no task until the stale check (a task that does exist
// is left as it is by the enqueue). The caller (worker me) takes over only
// while it has itself beaten without a break for dead: right after a
// PostgreSQL outage every beat is old, and a live worker must not be judged
// dead for it. It returns the ids of the jobs taken over.
func (s *Store) TakeOverJobs(ctx context.Context, me string, dead, stale time.Duration) ([]int64, error) {
	rows, err := s.pool.Query(ctx, takeOverSQL, me, dead, stale)
	if err != nil {
		return nil, fmt.Errorf("store: take over jobs: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: take over jobs: %w", err)
	}
	return ids, nil
}

// LostJob is a task of one job that no live worker has: the job and the
// recoveries its task id names (queue.Payload's Recovery).
type LostJob struct {
	ID         int64
	Recoveries int32
}

// RecoverLost sends solo, under new task ids, the jobs of tasks that a
// worker took from Redis and lost before it wrote anything here (it died,
// or lost both servers): jobs that no worker holds, and bundles no worker
// claimed. It is TakeOverJobs for what has no owner to judge dead. The
// lost task may still be active in asynq until asynq's recoverer finds it
// (a minute or two), so the jobs count a recovery and get the task id
// job:<id>:r<n>; when the old task runs at last, it finds its bundle gone
// or its job held or done. A job whose recoveries moved on since its task
// was made, a job a worker holds, or a bundle a worker claimed is left as
// it is, so a task found lost twice recovers its jobs once. It returns the
// ids sent solo.
func (s *Store) RecoverLost(ctx context.Context, jobs []LostJob, bundles []BundleKey) ([]int64, error) {
	ids, recoveries := make([]int64, len(jobs)), make([]int32, len(jobs))
	for i, j := range jobs {
		ids[i], recoveries[i] = j.ID, j.Recoveries
	}
	batches, firsts := make([]int64, len(bundles)), make([]int32, len(bundles))
	for i, b := range bundles {
		batches[i], firsts[i] = b.BatchID, b.FirstSeq
	}
	rows, err := s.pool.Query(ctx, `
		WITH bundle AS (
			DELETE FROM bundles b USING unnest($3::bigint[], $4::int[]) AS k(batch_id, first_seq)
			WHERE b.batch_id = k.batch_id AND b.first_seq = k.first_seq AND b.worker_id IS NULL
			RETURNING b.batch_id, b.first_seq, b.end_seq
		), bundled AS (
			UPDATE jobs SET solo = true, enqueued_at = NULL, recoveries = recoveries + 1
			FROM bundle b
			WHERE `+dissolvedBundleJobs+`
			RETURNING jobs.id
		), alone AS (
			UPDATE jobs SET solo = true, enqueued_at = NULL, recoveries = jobs.recoveries + 1
			FROM unnest($1::bigint[], $2::int[]) AS k(id, recoveries)
			WHERE jobs.id = k.id AND jobs.recoveries = k.recoveries AND jobs.worker_id IS NULL
				AND `+stillLive+` AND jobs.dup_of IS NULL
				AND (jobs.batch_id IS NULL OR jobs.solo OR jobs.recoveries > 0)
			RETURNING jobs.id
		)
		SELECT id FROM bundled UNION ALL SELECT id FROM alone`, ids, recoveries, batches, firsts)
	if err != nil {
		return nil, fmt.Errorf("store: recover lost tasks: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: recover lost tasks: %w", err)
	}
	return out, nil
}

// JobHolder returns a job's state and the worker holding it ("" if none):
// the job's own owner, or for a job still in its bundle, the bundle's.
func (s *Store) JobHolder(ctx context.Context, id int64) (state jobtype.State, owner string, err error) {
	var o *string
	err = s.pool.QueryRow(ctx, `
		SELECT j.state, coalesce(j.worker_id, (
			SELECT b.worker_id FROM bundles b
			WHERE NOT j.solo AND b.batch_id = j.batch_id AND b.first_seq <= j.seq AND j.seq < b.end_seq))
		FROM jobs j WHERE j.id = $1`, id).Scan(&state, &o)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", "", fmt.Errorf("store: job holder: %w", err)
	}
	return state, deref(o), nil
}

// Held is what a worker process knows it holds: jobs it runs, and the
// bundles it works through (by batch and first seq).
type Held struct {
	Jobs    []int64
	Bundles []BundleKey
}

// BundleKey names a bundle: its batch and its first seq.
type BundleKey struct {
	BatchID  int64
	FirstSeq int32
}

// ReleaseStrays clears the owner of the live jobs, and of the bundles,
// held by worker me but not among keep (what the worker knows it holds),
// and returns the ids of those jobs and the number of those bundles. A
// released bundle is handed out again by the dispatcher.
func (s *Store) ReleaseStrays(ctx context.Context, me string, keep Held) (jobs []int64, bundles int, err error) {
	if keep.Jobs == nil {
		keep.Jobs = []int64{} // a nil slice is a NULL array, and "id <> ALL (NULL)" holds for no job
	}
	batches, firsts := make([]int64, len(keep.Bundles)), make([]int32, len(keep.Bundles))
	for i, b := range keep.Bundles {
		batches[i], firsts[i] = b.BatchID, b.FirstSeq
	}
	rows, err := s.pool.Query(ctx, `
		WITH b AS (
			UPDATE bundles SET worker_id = NULL
			WHERE worker_id = $1 AND (batch_id, first_seq) NOT IN (SELECT * FROM unnest($3::bigint[], $4::int[]))
			RETURNING batch_id
		), again AS (
			`+redispatch("SELECT batch_id FROM b")+`
		), j AS (
			-- enqueued_at set back too: the dispatcher enqueues the job
			-- again at its next round, in case its task was completed
			-- meanwhile (handedLongAgo: it ran, so it was admitted).
			UPDATE jobs SET worker_id = NULL, enqueued_at = `+handedLongAgo+`
			WHERE worker_id = $1 AND state IN `+liveStates+` AND id <> ALL ($2)
			RETURNING id
		)
		SELECT id, false FROM j UNION ALL SELECT 0, true FROM b`, me, keep.Jobs, batches, firsts)
	if err != nil {
		return nil, 0, fmt.Errorf("store: release strays: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var bundle bool
		if err := rows.Scan(&id, &bundle); err != nil {
			return nil, 0, fmt.Errorf("store: release strays: %w", err)
		}
		if bundle {
			bundles++
		} else {
			jobs = append(jobs, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: release strays: %w", err)
	}
	return jobs, bundles, nil
}
