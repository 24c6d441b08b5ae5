package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Retention (migrations/00037_retention.sql, docs/service.md "Retention").
// A project that sets one keeps its final jobs, their labels, results and
// batch records for that long after they end; CollectGarbage deletes the
// rest in short transactions, except the job holding each level's newest
// definitive result in the project (unless the project drops results
// too). What no project's job refers to any more, a level and its label
// and verdict rows, goes with its last job.

// Retention is how long a project keeps its final jobs.
type Retention struct {
	// Keep is how long after it ends a job is kept; 0: forever.
	Keep time.Duration
	// DropResults deletes even the newest definitive result of a level
	// with the other jobs (false, the default, keeps that job).
	DropResults bool
}

// MinRetention is the shortest retention a project may set: shorter would
// delete a job while its client still polls it.
const MinRetention = time.Hour

// SetRetention sets project id's retention; ErrNotFound if there is no
// such project.
func (s *Store) SetRetention(ctx context.Context, id int64, r Retention) error {
	if r.Keep != 0 && r.Keep < MinRetention {
		return fmt.Errorf("store: retention %v is shorter than %v", r.Keep, MinRetention)
	}
	var keep *string
	if r.Keep > 0 {
		k := fmt.Sprintf("%d seconds", int64(r.Keep/time.Second))
		keep = &k
	}
	tag, err := s.pool.Exec(ctx, `UPDATE projects SET retain = $2::interval, keep_results = $3 WHERE id = $1`,
		id, keep, !r.DropResults)
	if err != nil {
		return fmt.Errorf("store: set retention: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return NotFound("project", fmt.Sprint(id))
	}
	return nil
}

// seconds scans a count of seconds into a time.Duration.
type seconds time.Duration

func (d *seconds) Scan(src any) error {
	n, ok := src.(int64)
	if !ok {
		return fmt.Errorf("store: seconds: %T", src)
	}
	*d = seconds(time.Duration(n) * time.Second)
	return nil
}

// GCOptions bound a collection.
type GCOptions struct {
	// Chunk is how many jobs one transaction deletes at most (default 500):
	// short transactions, so that the collector never holds a lock long.
	Chunk int
	// Pause is the rest between two transactions (default none), so that
	// the collector leaves PostgreSQL to the service.
	Pause time.Duration
	// MaxJobs stops the pass once that many jobs are deleted (0: none);
	// the next pass goes on where it stopped.
	MaxJobs int
}

// GCStats counts what a collection deleted and kept.
type GCStats struct {
	Jobs    int // jobs deleted, with their results, labels and checkpoints
	Kept    int // expired jobs kept for their level's newest definitive result
	Batches int // batch records deleted
	Levels  int // levels deleted (no job of any project has them any more)
	// Indexes rebuilt after the deletes, and the bytes that gave back
	// (store/rebuild.go).
	Indexes    int
	IndexBytes int64
}

func (g *GCStats) add(o GCStats) {
	g.Jobs += o.Jobs
	g.Kept += o.Kept
	g.Batches += o.Batches
	g.Levels += o.Levels
	g.Indexes += o.Indexes
	g.IndexBytes += o.IndexBytes
}

// gcLock is the advisory lock that lets one collector delete at a time
// across processes (every worker's dispatcher runs the periodic pass).
const gcLock = 0x70757a7a6c656467 // "puzzledg"

// ErrGCBusy is returned when another process is collecting.
var ErrGCBusy = errors.New("store: another collector is running")

// levelLockTimeout bounds the wait of a level step for its table lock
// (collector.levels): submissions wait behind the request that long at
// most.
const levelLockTimeout = 50 * time.Millisecond

// CollectGarbage deletes, as of now, what the projects' retention lets
// go: the final jobs that ended before now minus the retention, the
// records of batches whose every job did, and the levels no job has any
// more; then, if it deleted anything, it rebuilds the indexes that the
// deletes left sparse (rebuildIndexes). It works in transactions of at most o.Chunk jobs and stops when
// nothing is left, at o.MaxJobs, or when ctx ends; ErrGCBusy if another
// process is collecting.
func (s *Store) CollectGarbage(ctx context.Context, now time.Time, o GCOptions) (GCStats, error) {
	if o.Chunk <= 0 {
		o.Chunk = 500
	}
	c := collector{s: s, o: o, kept: map[int64]bool{}}
	// Levels left by a collection that stopped between its two steps.
	if err := c.levels(ctx); err != nil {
		return c.stats, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, $1::timestamptz - retain, keep_results FROM projects
		WHERE retain IS NOT NULL ORDER BY id`, now)
	if err != nil {
		return c.stats, fmt.Errorf("store: gc projects: %w", err)
	}
	type due struct {
		id     int64
		cutoff time.Time
		keep   bool
	}
	projects, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (due, error) {
		var d due
		err := r.Scan(&d.id, &d.cutoff, &d.keep)
		return d, err
	})
	if err != nil {
		return c.stats, fmt.Errorf("store: gc projects: %w", err)
	}
	for _, p := range projects {
		if err := c.project(ctx, p.id, p.cutoff, p.keep); err != nil {
			return c.stats, err
		}
	}
	err = c.levels(ctx)
	c.stats.Kept = len(c.kept)
	if err != nil || c.done || c.stats.Jobs+c.stats.Batches+c.stats.Levels == 0 {
		return c.stats, err
	}
	// The deletes leave index pages that the kept jobs hold open: pack
	// the indexes that grew sparse (a pass that deleted nothing leaves
	// them as they are, so an installation without retention never
	// rebuilds one).
	c.stats.Indexes, c.stats.IndexBytes, err = s.rebuildIndexes(ctx, o.Pause)
	if errors.Is(err, ErrGCBusy) {
		// Another process collects now, and rebuilds after.
		err = nil
	}
	return c.stats, err
}

// collector is one CollectGarbage.
type collector struct {
	s     *Store
	o     GCOptions
	stats GCStats
	kept  map[int64]bool // the jobs kept, once each however often looked at
	done  bool           // MaxJobs reached
}

// project collects one project's jobs that ended before cutoff: its
// batches first (a finished batch's jobs, then its record), then its jobs
// posted outside a batch.
func (c *collector) project(ctx context.Context, project int64, cutoff time.Time, keep bool) error {
	// Batches, oldest first, by keyset: a batch still running stays and
	// the walk goes on past it.
	after := struct {
		at time.Time
		id int64
	}{}
	for !c.done {
		var batches []int64
		var last time.Time
		rows, err := c.s.pool.Query(ctx, `
			SELECT b.id, b.created_at FROM batches b
			WHERE b.project_id = $1 AND b.created_at < $2 AND (b.created_at, b.id) > ($3, $4)
			ORDER BY b.created_at, b.id LIMIT 50`, project, cutoff, after.at, after.id)
		if err != nil {
			return fmt.Errorf("store: gc batches: %w", err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id, &last); err != nil {
				rows.Close()
				return fmt.Errorf("store: gc batches: %w", err)
			}
			batches = append(batches, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: gc batches: %w", err)
		}
		if len(batches) == 0 {
			break
		}
		after.at, after.id = last, batches[len(batches)-1]
		for _, b := range batches {
			if err := c.batch(ctx, b, cutoff, keep); err != nil {
				return err
			}
			if c.done {
				return nil
			}
		}
	}
	// Jobs outside a batch (jobs_single), oldest first. Kept ones are
	// walked past again at every pass: such jobs are few (one per level
	// and project, and only those a designer posted one by one).
	from := struct {
		at time.Time
		id int64
	}{}
	for !c.done {
		rows, err := c.s.pool.Query(ctx, `
			SELECT id, created_at FROM jobs
			WHERE project_id = $1 AND batch_id IS NULL AND created_at < $2 AND (created_at, id) > ($3, $4)
			ORDER BY created_at, id LIMIT $5`, project, cutoff, from.at, from.id, c.o.Chunk)
		if err != nil {
			return fmt.Errorf("store: gc jobs: %w", err)
		}
		var ids []int64
		for rows.Next() {
			if err := rows.Scan(&from.id, &from.at); err != nil {
				rows.Close()
				return fmt.Errorf("store: gc jobs: %w", err)
			}
			ids = append(ids, from.id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: gc jobs: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		if err := c.chunk(ctx, ids, cutoff, keep); err != nil {
			return err
		}
	}
	return nil
}

// batch deletes batch b's jobs and record if the batch ended before
// cutoff (no job live, and its last job finished before): its jobs in
// chunks of seq, then the record with its counters, label rows,
// dispatch and bundle rows, generations and webhooks. The jobs kept for
// their level's result take the batch's labels as their own, so that
// lists by label still find them.
func (c *collector) batch(ctx context.Context, b int64, cutoff time.Time, keep bool) error {
	var ended bool
	err := c.s.pool.QueryRow(ctx, `
		SELECT coalesce((SELECT coalesce(sum(n) FILTER (WHERE state IN `+liveStates+`), 0) = 0
				AND coalesce(max(finished_at) < $2, true)
			FROM job_counts WHERE batch_id = $1), true)
		FROM batches WHERE id = $1`, b, cutoff).Scan(&ended)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && !ended {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: gc batch %d: %w", b, err)
	}
	for seq := int32(-1); !c.done; {
		var ids []int64
		rows, err := c.s.pool.Query(ctx, `SELECT id, seq FROM jobs WHERE batch_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
			b, seq, c.o.Chunk)
		if err != nil {
			return fmt.Errorf("store: gc batch %d jobs: %w", b, err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id, &seq); err != nil {
				rows.Close()
				return fmt.Errorf("store: gc batch %d jobs: %w", b, err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: gc batch %d jobs: %w", b, err)
		}
		if len(ids) == 0 {
			break
		}
		if err := c.chunk(ctx, ids, cutoff, keep); err != nil {
			return err
		}
	}
	if c.done {
		return nil
	}
	return c.tx(ctx, func(tx pgx.Tx) error {
		// A job left in the batch is kept for its result, or ended after
		// cutoff after all (a retry): the latter keeps its batch.
		var unkept bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM jobs WHERE batch_id = $1
			AND NOT (coalesce(finished_at < $2, false) AND (state IN ('done', 'failed', 'canceled')) IS TRUE))`,
			b, cutoff).Scan(&unkept); err != nil {
			return fmt.Errorf("batch %d: %w", b, err)
		}
		if unkept {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE jobs j SET labels = b.labels || coalesce(j.labels, '{}')
			FROM batches b WHERE b.id = $1 AND j.batch_id = $1 AND jsonb_typeof(b.labels) = 'object'`, b); err != nil {
			return fmt.Errorf("batch %d kept jobs' labels: %w", b, err)
		}
		for _, q := range []string{
			// batch_labels' key leads with the label: its rows are found
			// from the batch's labels, not scanned for the batch id.
			`DELETE FROM batch_labels bl USING batches b, jsonb_each_text(CASE jsonb_typeof(b.labels) WHEN 'object' THEN b.labels END) e
				WHERE b.id = $1 AND bl.key = e.key AND bl.value = e.value AND bl.created_at = b.created_at AND bl.batch_id = b.id`,
			`DELETE FROM job_counts WHERE batch_id = $1`,
			`DELETE FROM batch_hist WHERE batch_id = $1`,
			`DELETE FROM batch_tops WHERE batch_id = $1`,
			`DELETE FROM batch_dispatch WHERE batch_id = $1`,
			`DELETE FROM bundles WHERE batch_id = $1`,
			`DELETE FROM generations WHERE batch_id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, b); err != nil {
				return fmt.Errorf("batch %d: %w", b, err)
			}
		}
		if err := deleteWebhooks(ctx, tx, `batch_id = ANY ($1)`, []int64{b}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM batches WHERE id = $1`, b); err != nil {
			return fmt.Errorf("batch %d: %w", b, err)
		}
		c.stats.Batches++
		return nil
	})
}

// chunk deletes, in one transaction, those of jobs ids that are final and
// ended before cutoff, except (keep) each one holding its level's newest
// definitive result among the project's jobs. It looks again at the jobs
// of the same levels kept before, so that a level keeps one such job, not
// one per time its newest result expired.
func (c *collector) chunk(ctx context.Context, ids []int64, cutoff time.Time, keep bool) error {
	err := c.tx(ctx, func(tx pgx.Tx) error {
		// The newest definitive result of a level in a project: no other
		// definitive result of that level, by a job of the project, is
		// newer (by the order GetLevel reads: created_at, then job id).
		rows, err := tx.Query(ctx, `
			SELECT j.id, j.level_hash,
				$3 AND EXISTS (
					SELECT 1 FROM results r WHERE r.job_id = j.id AND r.verdict IN `+definitiveVerdicts+`
						AND NOT EXISTS (SELECT 1 FROM results r2 JOIN jobs j2 ON j2.id = r2.job_id
							WHERE r2.level_hash = r.level_hash AND r2.verdict IN `+definitiveVerdicts+`
								AND j2.project_id = j.project_id
								AND (r2.created_at, r2.job_id) > (r.created_at, r.job_id)))
			FROM jobs j
			WHERE j.id IN (
					SELECT id FROM jobs WHERE id = ANY ($1)
					UNION
					-- Jobs kept at an earlier pass, whose batch is gone (or
					-- that had none), come back with a job of their level:
					-- a newer result may have taken their place since.
					SELECT o.id FROM jobs c JOIN jobs o ON o.level_hash = c.level_hash
					WHERE c.id = ANY ($1) AND o.project_id = c.project_id AND o.created_at < $2
						AND (o.batch_id IS NULL OR NOT EXISTS (SELECT 1 FROM batches b WHERE b.id = o.batch_id)))
				AND (j.state IN ('done', 'failed', 'canceled')) IS TRUE
				AND coalesce(j.finished_at, j.created_at) < $2
			ORDER BY j.id
			FOR UPDATE OF j`, ids, cutoff, keep)
		if err != nil {
			return fmt.Errorf("expired jobs: %w", err)
		}
		var gone, kept []int64
		var levels []string
		for rows.Next() {
			var id int64
			var hash string
			var isKept bool
			if err := rows.Scan(&id, &hash, &isKept); err != nil {
				rows.Close()
				return fmt.Errorf("expired jobs: %w", err)
			}
			if isKept {
				kept = append(kept, id)
				continue
			}
			gone = append(gone, id)
			levels = append(levels, hash)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("expired jobs: %w", err)
		}
		if len(gone) > 0 {
			if err := deleteJobs(ctx, tx, gone, levels); err != nil {
				return err
			}
		}
		c.stats.Jobs += len(gone)
		for _, id := range kept {
			c.kept[id] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.o.MaxJobs > 0 && c.stats.Jobs >= c.o.MaxJobs {
		c.done = true
	}
	return nil
}

// deleteJobs deletes jobs ids with their results, labels, webhooks and
// checkpoints (ON DELETE CASCADE), and notes their levels in gc_levels
// (for the level step: the level may have no job left, or labels no job
// carries any more). A level that stays loses the newest result its list showed if
// that was one of these jobs': level_verdicts then names the newest left.
func deleteJobs(ctx context.Context, tx pgx.Tx, ids []int64, hashes []string) error {
	for _, q := range []string{
		`DELETE FROM results WHERE job_id = ANY ($1)`,
		`DELETE FROM job_labels WHERE job_id = ANY ($1)`,
		`DELETE FROM webhook_job_outbox WHERE job_id = ANY ($1)`,
	} {
		if _, err := tx.Exec(ctx, q, ids); err != nil {
			return fmt.Errorf("delete jobs: %w", err)
		}
	}
	if err := deleteWebhooks(ctx, tx, `job_id = ANY ($1)`, ids); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM jobs WHERE id = ANY ($1)`, ids); err != nil {
		return fmt.Errorf("delete jobs: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO gc_levels (hash)
		SELECT DISTINCT h FROM unnest($1::text[]) AS h
		ON CONFLICT DO NOTHING`, hashes); err != nil {
		return fmt.Errorf("delete jobs: their levels: %w", err)
	}
	// level_verdicts of levels that stay: if it named a deleted result,
	// it names the newest left (or goes, if none is).
	if _, err := tx.Exec(ctx, `
		WITH stale AS (
			SELECT v.hash FROM level_verdicts v
			WHERE v.hash = ANY ($1) AND v.result_job_id = ANY ($2)
		), fixed AS (
			UPDATE level_verdicts v SET verdict = n.verdict, result_job_id = n.job_id, result_at = n.created_at
			FROM stale s CROSS JOIN LATERAL (
				SELECT r.verdict, r.job_id, r.created_at FROM results r WHERE r.level_hash = s.hash
				ORDER BY r.created_at DESC, r.job_id DESC LIMIT 1) n
			WHERE v.hash = s.hash
			RETURNING v.hash
		)
		DELETE FROM level_verdicts v USING stale s
		WHERE v.hash = s.hash AND s.hash NOT IN (SELECT hash FROM fixed)`, hashes, ids); err != nil {
		return fmt.Errorf("delete jobs: level verdicts: %w", err)
	}
	return nil
}

// deleteWebhooks deletes the webhooks matching cond (on $1) with their
// events, deliveries and outbox rows.
func deleteWebhooks(ctx context.Context, tx pgx.Tx, cond string, ids []int64) error {
	hooks := `SELECT id FROM webhooks WHERE ` + cond
	for _, q := range []string{
		`DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM webhook_events WHERE webhook_id IN (` + hooks + `))`,
		`DELETE FROM webhook_events WHERE webhook_id IN (` + hooks + `)`,
		`DELETE FROM webhook_job_outbox WHERE webhook_id IN (` + hooks + `)`,
		`DELETE FROM webhooks WHERE ` + cond,
	} {
		if _, err := tx.Exec(ctx, q, ids); err != nil {
			return fmt.Errorf("delete webhooks: %w", err)
		}
	}
	return nil
}

// levelChunk bounds the levels one level step looks at: it holds the
// table lock below while it works.
const levelChunk = 50

// levels deletes the levels noted in gc_levels that still have no job,
// with their verdict and label rows, and the label rows of the others
// that no job of theirs carries any more, levelChunk levels a transaction. The table lock
// (SHARE ROW EXCLUSIVE, which every INSERT into levels waits for and which
// waits for every open one) closes the race with a submission that found
// the level stored (ON CONFLICT DO NOTHING) and has not committed its job
// yet: under the lock no such transaction is open. The lock is asked for
// with a timeout, levelLockTimeout, since submissions queue behind the
// request: when a long submission holds the table, the levels wait for
// the next pass.
func (c *collector) levels(ctx context.Context) error {
	busy := 0
	for !c.done {
		var left bool
		if err := c.s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM gc_levels)`).Scan(&left); err != nil {
			return fmt.Errorf("store: gc levels: %w", err)
		}
		if !left {
			return nil
		}
		var n int
		err := c.txRest(ctx, levelRest, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, fmt.Sprintf(`SET LOCAL lock_timeout = '%dms'`, levelLockTimeout.Milliseconds())); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `LOCK TABLE levels IN SHARE ROW EXCLUSIVE MODE`); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = 0`); err != nil {
				return err
			}
			// Each statement probes the indexes level by level (a few rows
			// each): the planner, not knowing how few levels come, would
			// rather hash every job (0.5 s on a million), or read all of
			// level_labels when its statistics date from when it was small
			// (0.13 s on 60,000 rows), while holding the lock.
			if _, err := tx.Exec(ctx, `SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `DELETE FROM gc_levels WHERE hash IN (SELECT hash FROM gc_levels ORDER BY hash LIMIT $1)
				RETURNING hash`, min(c.o.Chunk, levelChunk))
			if err != nil {
				return fmt.Errorf("levels to look at: %w", err)
			}
			picked, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return fmt.Errorf("levels to look at: %w", err)
			}
			rows, err = tx.Query(ctx, `SELECT h FROM unnest($1::text[]) h WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE level_hash = h)`, picked)
			if err != nil {
				return fmt.Errorf("orphaned levels: %w", err)
			}
			orphans, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return fmt.Errorf("orphaned levels: %w", err)
			}
			// A label row stays while a job of the level carries the
			// label, its own or its batch's (an own label of the same key
			// wins): all go with the level.
			if _, err := tx.Exec(ctx, `DELETE FROM level_labels x WHERE x.level_hash = ANY ($1)
				AND NOT EXISTS (SELECT 1 FROM jobs j LEFT JOIN batches b ON b.id = j.batch_id
					WHERE j.level_hash = x.level_hash
						AND (j.labels ->> x.key = x.value OR (j.labels -> x.key IS NULL AND b.labels ->> x.key = x.value)))`,
				picked); err != nil {
				return fmt.Errorf("level labels: %w", err)
			}
			if _, err := tx.Exec(ctx, `DELETE FROM level_verdicts WHERE hash = ANY ($1)`, orphans); err != nil {
				return fmt.Errorf("level verdicts: %w", err)
			}
			tag, err := tx.Exec(ctx, `DELETE FROM levels WHERE hash = ANY ($1)`, orphans)
			if err != nil {
				return fmt.Errorf("delete levels: %w", err)
			}
			n = int(tag.RowsAffected())
			c.stats.Levels += n
			return nil
		})
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
			// Submissions held the table: try again in a moment, a few
			// times, then leave the levels to the next pass.
			if busy++; busy == levelLockTries {
				return nil
			}
			if err := sleepCtx(ctx, levelLockTimeout); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// levelLockTries is how often a level step asks for its lock in a pass
// before it leaves the levels to the next pass.
const levelLockTries = 20

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// tx runs fn in a transaction that holds the collector's advisory lock,
// then rests o.Pause.
func (c *collector) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	return c.txRest(ctx, c.o.Pause, fn)
}

// levelRest is the rest after a level step: enough for the submissions
// that queued behind its lock to go through; a level step is short.
const levelRest = 10 * time.Millisecond

// txRest is tx with a rest of its own.
func (c *collector) txRest(ctx context.Context, rest time.Duration, fn func(pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, c.s.pool, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, tryLockSQL, int64(gcLock)).Scan(&mine); err != nil {
			return err
		}
		if !mine {
			return ErrGCBusy
		}
		// A deletion lost in a crash is done again by the next pass: no
		// need to wait for the WAL flush, whose writes the service's own
		// commits would queue behind.
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		return fn(tx)
	})
	if err != nil && !errors.Is(err, ErrGCBusy) {
		return fmt.Errorf("store: gc: %w", err)
	}
	if err == nil && rest > 0 {
		return sleepCtx(ctx, min(rest, c.o.Pause))
	}
	return err
}
