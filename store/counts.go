package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Counts. Every statement that inserts jobs or changes their state,
// verdict or cached flag appends the change to job_counts (by batch) and
// hour_counts (by the hour of the jobs' creation), grouped by kind, state,
// verdict and cached (the triggers of migrations/00010_write_path.sql): a
// batch's progress and /v1/stats sum a few rows instead of reading every
// job. CompactCounts folds the rows appended since the last fold.

// compactLock is the advisory lock that lets one CompactCounts run at a
// time across processes (the dispatcher of every worker calls it).
const compactLock = 0x70757a7a6c6564 // "puzzled"

// compactAbove is how many rows a batch may have in job_counts before
// CompactCounts folds them (an hour of hour_counts four times as many).
const compactAbove = 16

// CompactCounts folds the count rows of batches and hours that have more
// than a few, one group at a time up to limit groups, and the rollups of
// results likewise (compactRollups), and reports how many groups of counts
// it folded. Another process folding at the same time makes it return at
// once.
func (s *Store) CompactCounts(ctx context.Context, limit int) (int, error) {
	var folded int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, tryLockSQL, int64(compactLock)).Scan(&mine); err != nil || !mine {
			return err
		}
		if err := tx.QueryRow(ctx, `
			WITH heavy AS (
				SELECT batch_id FROM job_counts GROUP BY 1 HAVING count(*) > $1 LIMIT $2
			), d AS (
				DELETE FROM job_counts c USING heavy h WHERE c.batch_id = h.batch_id RETURNING c.*
			), f AS (
				INSERT INTO job_counts (batch_id, kind, state, verdict, cached, n, finished_at)
				SELECT batch_id, kind, state, verdict, cached, sum(n), max(finished_at)
				FROM d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0
			)
			SELECT count(*) FROM heavy`, compactAbove, limit).Scan(&folded); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			WITH heavy AS (
				SELECT hour FROM hour_counts GROUP BY 1 HAVING count(*) > 4 * $1 LIMIT $2
			), d AS (
				DELETE FROM hour_counts c USING heavy h WHERE c.hour = h.hour RETURNING c.*
			)
			INSERT INTO hour_counts (hour, kind, state, verdict, cached, n)
			SELECT hour, kind, state, verdict, cached, sum(n) FROM d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0`,
			compactAbove, limit); err != nil {
			return err
		}
		return compactRollups(ctx, tx, limit)
	})
	if err != nil {
		return 0, fmt.Errorf("store: compact counts: %w", err)
	}
	return folded, nil
}
