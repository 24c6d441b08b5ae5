package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Admission of bulk work (migrations/00036_fair_share.sql). A bulk task —
// a bundle of a batch, or a bulk job that travels alone — reaches asynq
// only once the dispatcher admits it, a few at a time as the workers take
// them, so that what waits in Redis is short and a project that submits
// later is not queued behind everything another project submitted
// before. Interactive work and resumed jobs are never held back.

// waitsForAdmission is the condition that a live job that travels alone
// waits for AdmitBulk: bulk, never handed to asynq, never taken back from
// a worker (those resume ahead of everything). It is written out in the
// predicates of the indexes jobs_live and jobs_waiting.
const waitsForAdmission = `(enqueued_at IS NULL AND priority = 'bulk' AND recoveries = 0)`

// handedLongAgo is the enqueued stamp given back to a live job that needs
// a task again and was admitted already (Unstamp, a dead dispatcher's
// stamps, a worker's strays): long stale, so that the dispatcher's next
// ClaimLiveJobs takes it first. NULL would make a bulk job that was never
// taken back wait for admission again (waitsForAdmission) and count as
// waiting rather than in flight.
const handedLongAgo = `'-infinity'::timestamptz`

// waitingJobs is the WHERE clause of the jobs that wait for admission
// (index jobs_waiting).
const waitingJobs = travelsAlone + ` AND ` + waitsForAdmission

// BulkDemand is what one project has of bulk work: tasks in flight
// (admitted, not finished: waiting in Redis or running) and tasks waiting
// for admission (counted up to a bound), with its weight and cap.
type BulkDemand struct {
	Project  int64
	Weight   int
	Cap      int // the most tasks in flight; 0: no cap
	InFlight int
	Running  int // of InFlight, those a worker holds
	Waiting  int
}

// admitLock is the advisory lock that lets one dispatcher admit at a time.
const admitLock = 0x70757a61646d6974 // "puzadmit"

// waitingBound bounds how many waiting tasks of a project AdmitBulk counts:
// no round admits more.
const waitingBound = 4096

// AdmitBulk admits waiting bulk work: it reads each project's demand,
// asks share how many tasks each project gets now, and stamps that many
// as handed to asynq by worker by (jobs that travel alone first, in id
// order, then the bundles of the project's batches, oldest batch first, in
// seq order). The caller must hand the returned jobs and bundles to asynq
// (Unstamp what fails). One dispatcher admits at a time: when another
// does, AdmitBulk returns nothing and ok false.
func (s *Store) AdmitBulk(ctx context.Context, by string, share func([]BulkDemand) map[int64]int) (jobs []LiveJob, batches []LiveBatch, ok bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, tryLockSQL, int64(admitLock)).Scan(&ok); err != nil || !ok {
			return err
		}
		demand, err := bulkDemand(ctx, tx)
		if err != nil || len(demand) == 0 {
			return err
		}
		for project, n := range share(demand) {
			if n <= 0 {
				continue
			}
			js, err := admitJobs(ctx, tx, by, project, n)
			if err != nil {
				return err
			}
			jobs = append(jobs, js...)
			if n -= len(js); n == 0 {
				continue
			}
			bs, err := admitBundles(ctx, tx, by, project, n)
			if err != nil {
				return err
			}
			batches = append(batches, bs...)
		}
		return nil
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("store: admit bulk work: %w", err)
	}
	return jobs, batches, ok, nil
}

// bulkDemand reads the demand of every project that has bulk work
// waiting. In flight: the live bundles of its bulk batches below their
// admission mark, and its bulk jobs that travel alone and were handed to
// asynq; running: those of them a worker holds (bundles.worker_id,
// jobs.worker_id).
func bulkDemand(ctx context.Context, tx pgx.Tx) ([]BulkDemand, error) {
	rows, err := tx.Query(ctx, `
		WITH bi AS (
			SELECT d.project_id, count(*) AS n, count(bu.worker_id) AS running FROM batch_dispatch d
			JOIN bundles bu ON bu.batch_id = d.batch_id AND (d.admit_below IS NULL OR bu.first_seq < d.admit_below)
			WHERE d.priority = 'bulk' GROUP BY d.project_id
		), ji AS (
			SELECT project_id, count(*) AS n, count(worker_id) AS running FROM jobs
			WHERE `+travelsAlone+` AND NOT `+waitsForAdmission+`
				AND enqueued_at IS NOT NULL AND priority = 'bulk' AND recoveries = 0
			GROUP BY project_id
		)
		SELECT p.id, p.bulk_weight, coalesce(p.bulk_cap, 0), (coalesce(bi.n, 0) + coalesce(ji.n, 0))::int,
			(coalesce(bi.running, 0) + coalesce(ji.running, 0))::int, (w.bundles + w.jobs)::int
		FROM projects p
		LEFT JOIN bi ON bi.project_id = p.id
		LEFT JOIN ji ON ji.project_id = p.id
		CROSS JOIN LATERAL (SELECT
			(SELECT count(*) FROM (SELECT 1 FROM batch_dispatch d
				JOIN bundles bu ON bu.batch_id = d.batch_id AND bu.first_seq >= d.admit_below
				WHERE d.project_id = p.id AND d.priority = 'bulk' LIMIT $1) x) AS bundles,
			(SELECT count(*) FROM (SELECT 1 FROM jobs WHERE project_id = p.id AND `+waitingJobs+` LIMIT $1) y) AS jobs
		) w
		WHERE w.bundles + w.jobs > 0
		ORDER BY p.id`, waitingBound)
	if err != nil {
		return nil, fmt.Errorf("bulk demand: %w", err)
	}
	demand, err := pgx.CollectRows(rows, pgx.RowToStructByPos[BulkDemand])
	if err != nil {
		return nil, fmt.Errorf("bulk demand: %w", err)
	}
	return demand, nil
}

// admitJobs stamps up to n of project's waiting bulk jobs as handed over.
func admitJobs(ctx context.Context, tx pgx.Tx, by string, project int64, n int) ([]LiveJob, error) {
	rows, err := tx.Query(ctx, `
		WITH c AS (
			SELECT id FROM jobs WHERE project_id = $1 AND `+waitingJobs+`
			ORDER BY id LIMIT $2
			FOR UPDATE SKIP LOCKED
		)
		UPDATE jobs j SET enqueued_at = now(), enqueued_by = nullif($3, '') FROM c WHERE j.id = c.id
		RETURNING `+liveJobColumns, project, n, by)
	if err != nil {
		return nil, fmt.Errorf("admit jobs: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[LiveJob])
	if err != nil {
		return nil, fmt.Errorf("admit jobs: %w", err)
	}
	return jobs, nil
}

// admitBundles admits up to n of the waiting bundles of project's bulk
// batches, oldest batch first: it raises each batch's admission mark past
// them and names the admitting worker (so that its death unstamps the
// batch: store.TakeOverJobs). It leaves the batch's enqueued stamp alone:
// the stamp says when all its admitted bundles were last handed over, and
// this hands over only the new ones. Moved on at each admission (every few
// milliseconds while bulk work waits), it hid the bundles admitted before
// from every later look: after Redis lost its data, a sweep that began
// just before another dispatcher's admission passed the batch by, and
// those bundles waited a whole Stale for a task (the multi-host suite's
// "Redis restart, data lost", issue 30).
func admitBundles(ctx context.Context, tx pgx.Tx, by string, project int64, n int) ([]LiveBatch, error) {
	rows, err := tx.Query(ctx, `
		WITH w AS (
			SELECT bu.batch_id, bu.first_seq FROM batch_dispatch d
			JOIN bundles bu ON bu.batch_id = d.batch_id AND bu.first_seq >= d.admit_below
			WHERE d.project_id = $1 AND d.priority = 'bulk'
			ORDER BY d.batch_id, bu.first_seq LIMIT $2
		), g AS (
			SELECT batch_id, array_agg(first_seq ORDER BY first_seq) AS firsts, max(first_seq) AS top
			FROM w GROUP BY batch_id
		)
		UPDATE batch_dispatch d SET admit_below = g.top + 1, enqueued_by = nullif($3, '')
		FROM g WHERE d.batch_id = g.batch_id
		RETURNING d.batch_id, d.priority, d.max_ms, g.firsts`, project, n, by)
	if err != nil {
		return nil, fmt.Errorf("admit bundles: %w", err)
	}
	batches, err := pgx.CollectRows(rows, pgx.RowToStructByPos[LiveBatch])
	if err != nil {
		return nil, fmt.Errorf("admit bundles: %w", err)
	}
	return batches, nil
}
