package store

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Planner statistics after a table's sudden growth.
//
// Autovacuum analyzes a table once a tenth of it has changed, but looks
// only once a minute (autovacuum_naptime). On a young installation the
// first large batch multiplies jobs, levels and bundles many times over
// in one transaction, and for up to that minute every connection keeps
// plans made when the tables were nearly empty: pgx prepares its
// statements, PostgreSQL soon settles on a generic plan for each, and a
// generic plan made over a few pages scans the table. Measured on a fresh
// database (bench-fair's first round), the worker's result write became a
// sequential scan of 20,000 jobs, 21 ms a call instead of 2.8 ms, on a
// machine whose two cores were also solving. An ANALYZE right after such a
// batch gives the planner the tables' real sizes and invalidates every
// connection's cached plans, so the next execution is planned again.

// analyzeTables are the tables a batch grows: a job per level, a level
// per new level, a bundle per 64 levels.
const analyzeTables = `jobs, levels, bundles`

// analyzeAfter is the least number of jobs a batch must have for
// CreateBatch to look at the statistics: below it a wrong plan costs
// little, and autovacuum catches up within its minute.
const analyzeAfter = 1000

// analyzeIfGrown analyzes analyzeTables in the background when a batch of
// n jobs is larger than jobs was at its last analyze (reltuples: -1 or 0
// before the first), that is when the batch at least doubled it. That
// happens about log2(jobs) times in an installation's life, so the cost
// (an ANALYZE samples at most 30,000 rows of each table: 1 s after the
// first batch of 20,000 on a loaded 2-CPU machine) is negligible; it is
// kept off the submission's answer all the same. One runs at a time;
// Close cancels it and waits for it.
func (s *Store) analyzeIfGrown(ctx context.Context, n int) {
	if n < analyzeAfter {
		return
	}
	var tuples float64
	if err := s.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'jobs'::regclass`).Scan(&tuples); err != nil {
		s.logger.Warn("store: read the planner's size of jobs", "err", err)
		return
	}
	if tuples >= float64(n) || !s.analyzing.CompareAndSwap(false, true) {
		return
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		defer s.analyzing.Store(false)
		ctx, cancel := context.WithTimeout(s.closing, 5*time.Minute)
		defer cancel()
		start := time.Now()
		// Without ownership of the tables, ANALYZE warns and skips them;
		// autovacuum then catches up within its minute, as before.
		if _, err := s.pool.Exec(ctx, `ANALYZE `+analyzeTables); err != nil {
			s.logger.Warn("store: analyze after a large batch", "err", fmt.Errorf("analyze: %w", err))
			return
		}
		s.logger.Info("store: analyzed after a large batch", slog.Int("jobs", n),
			slog.Float64("jobs_before", tuples), slog.Duration("took", time.Since(start)))
	}()
}
