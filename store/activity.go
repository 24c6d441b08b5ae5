package store

import (
	"context"
	"fmt"
	"time"
)

// Activity is what PostgreSQL has written so far, for the benchmarks that
// report the database's cost per job (puzzled bench, docs/benchmarks.md).
type Activity struct {
	// WAL is the server's WAL position in bytes: the difference of two
	// readings is the WAL written in between, by every database.
	WAL int64
	// Updated, HOT and Deleted count the row versions of this database's
	// tables made dead by UPDATE (HOT of them heap-only) and DELETE.
	Updated, HOT, Deleted int64
}

// Dead is the number of row versions made dead.
func (a Activity) Dead() int64 { return a.Updated + a.Deleted }

// Activity reads the WAL position and the row counters of this database.
// A backend reports its row counters at most once a second, and an idle
// one within 10 s (PostgreSQL's PGSTAT_IDLE_INTERVAL): with settle true,
// Activity waits that long first, so that every write so far is counted.
func (s *Store) Activity(ctx context.Context, settle bool) (Activity, error) {
	if settle {
		select {
		case <-time.After(11 * time.Second):
		case <-ctx.Done():
			return Activity{}, ctx.Err()
		}
	}
	var a Activity
	err := s.pool.QueryRow(ctx, `
		SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,
			coalesce(sum(n_tup_upd), 0)::bigint, coalesce(sum(n_tup_hot_upd), 0)::bigint, coalesce(sum(n_tup_del), 0)::bigint
		FROM pg_stat_user_tables`).Scan(&a.WAL, &a.Updated, &a.HOT, &a.Deleted)
	if err != nil {
		return Activity{}, fmt.Errorf("store: activity: %w", err)
	}
	return a, nil
}

// Vacuum runs VACUUM ANALYZE on the database, as autovacuum would after a
// large batch arrives: a benchmark that measures what an idle backlog
// writes runs it first, so as not to count the vacuum's own writes.
func (s *Store) Vacuum(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return fmt.Errorf("store: vacuum: %w", err)
	}
	return nil
}
