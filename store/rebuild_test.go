package store_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/store"
)

// TestCollectGarbageRebuildsSparseIndexes: a collection that deletes most
// of 80,000 old jobs but keeps each level's newest result, scattered over
// the ids, leaves jobs_pkey nearly as large as before; the collection then
// rebuilds it (and the other sparse indexes) packed, records the build,
// and drops the invalid copy a cut-short rebuild left. A pass that deletes
// nothing, or one job, rebuilds nothing.
func TestCollectGarbageRebuildsSparseIndexes(t *testing.T) {
	t.Parallel()
	st, ctx, conn := setupConn(t)
	project := retainingProject(t, st, "week", store.Retention{Keep: 7 * 24 * time.Hour})
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	scalar := func(q string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	// jobs solved ten days ago, job i on level hashint4(i) mod levels, so
	// that the newest job of each level (the one kept) may be anywhere.
	oldJobs := func(from, n, levels int) {
		t.Helper()
		exec(`
			INSERT INTO levels (hash, kind, body, created_at)
			SELECT md5('l' || l) || md5('k' || l), 'twoends', jsonb_build_object('kind', 'twoends', 'values', jsonb_build_array(l, 1)),
				now() - interval '11 days'
			FROM generate_series(0, $1::int - 1) l
			ON CONFLICT DO NOTHING`, levels)
		exec(`
			INSERT INTO jobs (level_hash, kind, state, priority, attempts, verdict, created_at, started_at, finished_at, project_id)
			SELECT md5('l' || l) || md5('k' || l), 'twoends', 'done', 'bulk', 1, 'solved',
				t, t, t, $4::bigint
			FROM generate_series($1::int, $1::int + $2::int - 1) i,
				LATERAL (SELECT (hashint4(i) & 2147483647) % $3::int AS l,
					now() - interval '10 days' + i * interval '1 millisecond' AS t) x
			ORDER BY i`, from, n, levels, project)
		exec(`
			INSERT INTO results (job_id, level_hash, solver_version, verdict, value, optimal, plan, stats, created_at)
			SELECT j.id, j.level_hash, '1', 'solved', 7, true, '"LRL"', '{"nodes": 3}', j.finished_at
			FROM jobs j WHERE j.project_id = $1 AND NOT EXISTS (SELECT 1 FROM results r WHERE r.job_id = j.id)`, project)
	}
	size := func(index string) int64 { return scalar(`SELECT pg_relation_size($1::regclass)`, index) }
	const levels = 4000
	oldJobs(0, 80_000, levels)
	exec(`VACUUM ANALYZE jobs`)
	// What a REINDEX CONCURRENTLY cut short leaves: an invalid index
	// named after the one it rebuilt.
	if _, err := conn.Exec(ctx, `CREATE UNIQUE INDEX CONCURRENTLY jobs_pkey_ccnew ON jobs (project_id)`); err == nil {
		t.Fatal("a unique index on project_id was built; want it to fail and stay invalid")
	}
	if n := scalar(`SELECT count(*) FROM pg_index WHERE NOT indisvalid`); n != 1 {
		t.Fatalf("%d invalid indexes before the collection; want the 1 the test made", n)
	}
	before := size("jobs_pkey")

	stats, err := st.CollectGarbage(ctx, time.Now(), store.GCOptions{Chunk: 2000})
	if err != nil {
		t.Fatal(err)
	}
	kept := scalar(`SELECT count(DISTINCT level_hash) FROM jobs WHERE project_id = $1`, project)
	if stats.Jobs != 80_000-int(kept) || kept > levels || kept < levels*9/10 {
		t.Fatalf("collection: %+v with %d levels kept; want every job deleted but one per level", stats, kept)
	}
	if left := scalar(`SELECT count(*) FROM jobs WHERE project_id = $1`, project); left != kept {
		t.Fatalf("%d jobs left for %d levels; want one each", left, kept)
	}
	after := size("jobs_pkey")
	t.Logf("collection: %+v; jobs_pkey %d → %d bytes", stats, before, after)
	if stats.Indexes == 0 || stats.IndexBytes <= 0 || after > before/4 {
		t.Fatalf("collection rebuilt %d indexes (%d bytes); jobs_pkey %d → %d bytes: want it rebuilt, under a quarter",
			stats.Indexes, stats.IndexBytes, before, after)
	}
	if n := scalar(`SELECT count(*) FROM index_builds WHERE name IN ('jobs_pkey', 'results_pkey')`); n != 2 {
		t.Fatalf("%d of jobs_pkey, results_pkey in index_builds; want both", n)
	}
	if n := scalar(`SELECT count(*) FROM pg_index WHERE NOT indisvalid`); n != 0 {
		t.Fatalf("%d invalid indexes after the collection; want the leftover dropped", n)
	}

	// Nothing more to delete: nothing rebuilt.
	if stats, err = st.CollectGarbage(ctx, time.Now(), store.GCOptions{}); err != nil || stats != (store.GCStats{Kept: int(kept)}) {
		t.Fatalf("second collection: %+v, %v; want nothing deleted or rebuilt", stats, err)
	}
	// One newer job of a level: its kept job goes, and the indexes, as
	// dense as they were built, stay as they are.
	oldJobs(80_000, 1, levels)
	if stats, err = st.CollectGarbage(ctx, time.Now(), store.GCOptions{}); err != nil || stats.Jobs != 1 || stats.Indexes != 0 {
		rows, _ := conn.Query(ctx, `SELECT name || ' ' || bytes || ' ' || entries || ' ' || built_at FROM index_builds ORDER BY built_at`)
		builds, _ := pgx.CollectRows(rows, pgx.RowTo[string])
		t.Fatalf("third collection: %+v, %v; want 1 job deleted and no index rebuilt; builds: %q", stats, err, builds)
	}
}
