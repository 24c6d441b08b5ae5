package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Index rebuilds after a collection (docs/service.md, "Retention").
//
// Vacuum gives a table's deleted rows back to new rows, but an index page
// returns to use only once every entry on it is gone. The collector keeps
// the job holding each level's newest definitive result, a few in a
// hundred, scattered over the whole history: in every index ordered by
// time or id (jobs_pkey, jobs_list_created, results_pkey, …) those few
// entries keep nearly every old page alive, and the index grows with the
// history, not with what it holds. Measured with bench-retention: 1.0 M
// jobs over 30 days with 7 days kept, 730 MB at the end against 536 MB of
// 8 days' worth as loaded plus the kept jobs, growing every day.
// REINDEX CONCURRENTLY writes such an index again, packed, without
// blocking reads or writes of its table.

// rebuiltTables are the tables the collector deletes from: their indexes
// are the ones a collection can leave sparse.
var rebuiltTables = []string{
	"jobs", "results", "job_labels", "level_labels", "levels", "level_verdicts", "gc_levels",
	"batches", "batch_labels", "job_counts", "batch_hist", "batch_tops", "bundles",
	"batch_dispatch", "generations", "checkpoints",
	"webhook_job_outbox", "webhook_events", "webhook_deliveries",
}

const (
	// rebuildGrowth is how much more room an index may take per entry
	// than right after it was last built before a collection rebuilds
	// it: a rebuild must give back a fifth of it. An index filled in key
	// order keeps its build's density (90 %); one filled in random order
	// (levels_pkey, level_verdicts_pkey) drifts towards 70 %, 1.3× its
	// build's room, and is rebuilt every few passes. That is cheap: every
	// index of bench-retention's database (266,000 jobs, 200,000 levels,
	// 250 MB of indexes) took 3.7 s to rebuild.
	rebuildGrowth = 1.25
	// rebuildMinGain is the least room a rebuild must give back to be
	// worth one.
	rebuildMinGain = 1 << 20
	// rebuildLockTimeout bounds each of REINDEX CONCURRENTLY's waits (for
	// its table lock, and for the transactions older than its new index
	// to end); past it the index is left for the next pass.
	rebuildLockTimeout = 10 * time.Second
)

// rebuildIndexes rebuilds, one at a time, the indexes of rebuiltTables
// whose room per entry grew past rebuildGrowth since they were last built
// (an index never rebuilt is rebuilt once, so that its build is known).
// It runs on a connection of its own to the direct URL (REINDEX
// CONCURRENTLY runs outside any transaction, and the session advisory lock
// that keeps collectors out while it runs needs a session: a transaction
// pooler keeps neither). It returns the indexes rebuilt and the bytes
// they gave back.
func (s *Store) rebuildIndexes(ctx context.Context, rest time.Duration) (n int, freed int64, err error) {
	conn, err := pgx.ConnectConfig(ctx, s.direct)
	if err != nil {
		return 0, 0, fmt.Errorf("store: rebuild indexes: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var mine bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, int64(gcLock)).Scan(&mine); err != nil {
		return 0, 0, fmt.Errorf("store: rebuild indexes: %w", err)
	}
	if !mine {
		return 0, 0, ErrGCBusy
	}
	// Unlocked before the connection closes: a backend ends a moment
	// after its client hangs up, and the next collection would find the
	// lock still held.
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(gcLock))
	if _, err := conn.Exec(ctx, fmt.Sprintf(`SET lock_timeout = '%dms'`, rebuildLockTimeout.Milliseconds())); err != nil {
		return 0, 0, fmt.Errorf("store: rebuild indexes: %w", err)
	}
	if err := dropUnfinishedRebuilds(ctx, conn); err != nil {
		return 0, 0, err
	}
	// Counts after the deletes, which autovacuum has not seen yet: for
	// the choice below (the planner's entries of each index), and for
	// the rebuilds themselves, since a hash index is built with as many
	// buckets as its table is thought to hold rows.
	if _, err := conn.Exec(ctx, `ANALYZE `+strings.Join(rebuiltTables, ", ")); err != nil {
		return 0, 0, fmt.Errorf("store: rebuild indexes: analyze: %w", err)
	}
	type index struct {
		name         string
		bytes        int64
		entries      float64
		builtBytes   *int64
		builtEntries *float64
	}
	rows, err := conn.Query(ctx, `
		SELECT c.relname, pg_relation_size(c.oid), greatest(c.reltuples, 0), b.bytes, b.entries
		FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_class t ON t.oid = i.indrelid
		LEFT JOIN index_builds b ON b.name = c.relname
		WHERE t.relname = ANY ($1) AND t.relnamespace = current_schema()::regnamespace
			AND i.indisvalid
		ORDER BY c.relname`, rebuiltTables)
	if err != nil {
		return 0, 0, fmt.Errorf("store: rebuild indexes: %w", err)
	}
	indexes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (index, error) {
		var x index
		err := r.Scan(&x.name, &x.bytes, &x.entries, &x.builtBytes, &x.builtEntries)
		return x, err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("store: rebuild indexes: %w", err)
	}
	for _, x := range indexes {
		if !worthRebuilding(x.bytes, x.entries, x.builtBytes, x.builtEntries) {
			continue
		}
		var after int64
		_, err := conn.Exec(ctx, `REINDEX INDEX CONCURRENTLY `+pgx.Identifier{x.name}.Sanitize())
		if err == nil {
			err = conn.QueryRow(ctx, `
				INSERT INTO index_builds AS b (name, bytes, entries, built_at)
				SELECT relname, pg_relation_size(oid), greatest(reltuples, 0), now()
				FROM pg_class WHERE relname = $1 AND relnamespace = current_schema()::regnamespace
				ON CONFLICT (name) DO UPDATE SET bytes = excluded.bytes, entries = excluded.entries,
					built_at = excluded.built_at
				RETURNING bytes`, x.name).Scan(&after)
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
			// A long transaction or a vacuum held it up: the next pass
			// tries again, after dropping what this one left.
			if err := dropUnfinishedRebuilds(ctx, conn); err != nil {
				return n, freed, err
			}
			continue
		}
		if err != nil {
			return n, freed, fmt.Errorf("store: rebuild index %s: %w", x.name, err)
		}
		n++
		freed += x.bytes - after
		if err := sleepCtx(ctx, rest); err != nil {
			return n, freed, err
		}
	}
	return n, freed, nil
}

// worthRebuilding tells whether an index of size bytes holding entries
// (the planner's count) should be rebuilt, given its size and entries
// right after its last build (nil: never rebuilt by a collection). A
// build of fewer than minReferenceEntries says little of the room an
// entry takes (a page holds hundreds): such an index, like one never
// rebuilt, is rebuilt once it is large enough for a rebuild to matter.
func worthRebuilding(bytes int64, entries float64, builtBytes *int64, builtEntries *float64) bool {
	if builtBytes == nil || builtEntries == nil || *builtEntries < minReferenceEntries {
		return bytes >= rebuildMinGain
	}
	packed := float64(*builtBytes) / *builtEntries * entries
	return float64(bytes) > rebuildGrowth*packed && float64(bytes)-packed >= rebuildMinGain
}

// minReferenceEntries: see worthRebuilding.
const minReferenceEntries = 10_000

// dropUnfinishedRebuilds drops what a REINDEX CONCURRENTLY cut short left:
// an invalid copy of the index named <index>_ccnew (or _ccold), which
// writes would otherwise keep up to date for nothing.
func dropUnfinishedRebuilds(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `
		SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE NOT i.indisvalid AND c.relnamespace = current_schema()::regnamespace
			AND c.relname ~ '_cc(new|old)[0-9]*$'`)
	if err != nil {
		return fmt.Errorf("store: unfinished index rebuilds: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("store: unfinished index rebuilds: %w", err)
	}
	for _, name := range names {
		if _, err := conn.Exec(ctx, `DROP INDEX CONCURRENTLY IF EXISTS `+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("store: drop unfinished rebuild %s: %w", name, err)
		}
	}
	return nil
}
