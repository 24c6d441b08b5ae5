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
	_, err := s.pool.Exec(ctx, `
		INSERT INTO workers (id, host, pid) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(),
			beating_since = CASE WHEN workers.heartbeat_at < now() - $4::interval THEN now()
				ELSE workers.beating_since END`, id, host, pid, gap)
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

// TakeOverJobs releases the live jobs held by workers whose last beat is
// older than dead: each goes solo, its task id changes (recoveries) so that
// a new task is not mistaken for the dead worker's one still active in
// asynq, and the dispatcher enqueues it at once in the resumed queue. The
// caller (worker me) takes over only while it has itself beaten without a
// break for dead: right after a PostgreSQL outage every beat is old, and a
// live worker must not be judged dead for it. It returns the ids.
func (s *Store) TakeOverJobs(ctx context.Context, me string, dead time.Duration) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `
		UPDATE jobs SET worker_id = NULL, solo = true, enqueued_at = NULL, recoveries = recoveries + 1
		WHERE worker_id IS NOT NULL AND state IN `+liveStates+`
			AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = jobs.worker_id AND w.heartbeat_at > now() - $2::interval)
			AND EXISTS (SELECT 1 FROM workers me WHERE me.id = $1
				AND me.heartbeat_at > now() - $2::interval AND me.beating_since < now() - $2::interval)
		RETURNING id`, me, dead)
	if err != nil {
		return nil, fmt.Errorf("store: take over jobs: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: take over jobs: %w", err)
	}
	return ids, nil
}

// JobHolder returns a job's state and the worker holding it ("" if none).
func (s *Store) JobHolder(ctx context.Context, id int64) (state jobtype.State, owner string, err error) {
	var o *string
	err = s.pool.QueryRow(ctx, `SELECT state, worker_id FROM jobs WHERE id = $1`, id).Scan(&state, &o)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", "", fmt.Errorf("store: job holder: %w", err)
	}
	return state, deref(o), nil
}

// ReleaseStrays clears the owner of the live jobs held by worker me but
// not among keep (what the worker knows it holds), and returns their ids.
func (s *Store) ReleaseStrays(ctx context.Context, me string, keep []int64) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `
		UPDATE jobs SET worker_id = NULL
		WHERE worker_id = $1 AND state IN `+liveStates+` AND id <> ALL ($2)
		RETURNING id`, me, keep)
	if err != nil {
		return nil, fmt.Errorf("store: release strays: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: release strays: %w", err)
	}
	return ids, nil
}
