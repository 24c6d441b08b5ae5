package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
)

// TestKeyedWritesReadOnlyTheirJobs: on a large history analyzed before a
// batch arrived (so the statistics see no live job), the writes that name
// their jobs by id (or batch and seq) read those jobs through the primary
// key or jobs_batch_seq, and FinishJobs finds the waiting copies of its
// levels through jobs_dup_of; none reads every live job through
// jobs_list_state or jobs_live_batch, as they did when their state
// condition was an index condition (59 ms a finish with 50,000 queued).
func TestKeyedWritesReadOnlyTheirJobs(t *testing.T) {
	st, ctx, url := setupURL(t)
	if err := storetest.Seed(ctx, url, storetest.SeedParams{Jobs: 50_000, Levels: 10_000, Batches: 500, Kinds: kinds.Registry().Names()}); err != nil {
		t.Fatal(err)
	}
	levels := make([]store.Level, 5_000)
	for i := range levels {
		levels[i] = storetest.Level("twoends", fmt.Appendf(nil, `{"kind":"twoends","values":[%d,1,2]}`, i))
	}
	batch, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3,
		Versions: map[string]string{"twoends": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	ids := []int64{1, 2, 3}
	for _, tc := range []struct {
		name  string
		query string
		args  []any
		want  string
	}{
		{"FinishJobs", store.FinishJobsSQL, []any{ids[:1], []string{"v"}, []string{"solved"}, []*int64{nil},
			[]bool{false}, []*string{nil}, []*string{str("[]")}, []*string{nil}, []string{"{}"}, []int64{1}, []*string{nil},
			[]string{"w"}, []int32{1}},
			"jobs_dup_of"},
		{"StartJobs, MakeSolo", `UPDATE jobs SET worker_id = 'w' WHERE id = ANY ($1) AND ` + store.StillLive,
			[]any{ids}, "jobs_pkey"},
		{"ClaimBundle", `UPDATE jobs SET worker_id = 'w' WHERE batch_id = $1 AND seq >= 0 AND seq < 64 AND ` +
			store.StillLive + ` AND dup_of IS NULL AND NOT solo`, []any{batch}, "jobs_batch_seq"},
		{"SaveCheckpoint, RequeueJob", `SELECT 1 FROM jobs WHERE id = $1 AND ` + store.StateRunning,
			[]any{ids[0]}, "jobs_pkey"},
	} {
		plan, err := st.Explain(ctx, tc.query, tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if strings.Contains(plan, "jobs_list_state") || strings.Contains(plan, "jobs_live_batch") || !strings.Contains(plan, tc.want) {
			t.Errorf("%s does not read its jobs through %s:\n%s", tc.name, tc.want, plan)
		}
	}
	// The same conditions written as index conditions do read every live
	// job here: without that, this test would prove nothing.
	plan, err := st.Explain(ctx, `SELECT 1 FROM jobs WHERE id = ANY ($1) AND state IN ('queued', 'running')`, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "jobs_list_state") {
		t.Errorf("the planner no longer prefers jobs_list_state on stale statistics; the scenario proves nothing:\n%s", plan)
	}
}

// TestClaimsReadEachLevelByKey: a bundle's claim and a start of solo jobs
// read each job's level by key, however many levels there are. Joined
// plainly, the planner took a bundle's seq range (or an UPDATE …
// RETURNING) for thousands of jobs and hashed the whole levels table for
// each claim: 31 ms a claim of 64 jobs at 60,000 levels (the 938 claims of
// a 60,000-job puzzled bench: 29.4 s of execution, 1.3 s read by key).
func TestClaimsReadEachLevelByKey(t *testing.T) {
	st, ctx, url := setupURL(t)
	// A new database's first large batches, in the statistics as
	// autovacuum's ANALYZE leaves them while they run: few batches, so
	// the generic plan takes a batch for a large part of all jobs.
	var batch int64
	for b, n := range []int{1_000, 20_000} {
		levels := make([]store.Level, n)
		for i := range levels {
			levels[i] = storetest.Level("twoends", fmt.Appendf(nil, `{"kind":"twoends","values":[%d,%d,2]}`, i, b))
		}
		var err error
		if batch, err = st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3}); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `ANALYZE jobs, levels, bundles`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		query string
		args  []any
	}{
		{"ClaimBundle", store.ClaimBundleSQL, []any{batch, int32(0), int32(64), "w", "10s"}},
		{"StartJobs", store.StartJobsSQL, []any{[]int64{1, 2, 3}, "w", "10s"}},
	} {
		// The generic plan too: a prepared statement gets it after five runs
		// when it looks no dearer than the custom ones.
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			if _, err := conn.Exec(ctx, `SET plan_cache_mode = `+mode); err != nil {
				t.Fatal(err)
			}
			rows, err := conn.Query(ctx, "EXPLAIN "+tc.query, tc.args...)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if plan := strings.Join(lines, "\n"); strings.Contains(plan, "Seq Scan on levels") || !strings.Contains(plan, "levels_pkey") {
				t.Errorf("%s (%s) does not read each level by key:\n%s", tc.name, mode, plan)
			}
		}
	}
}

// TestTakeOverReadsNoJobWhileNoWorkerDied: a dispatcher round's takeover
// statement, with no worker dead, reads next to nothing however many jobs
// there are. Its part that dissolves a dead worker's bundles once read all
// of jobs to join them to no bundle (30 ms a round at 41,000 jobs).
func TestTakeOverReadsNoJobWhileNoWorkerDied(t *testing.T) {
	st, ctx, url := setupURL(t)
	levels := make([]store.Level, 20_000)
	for i := range levels {
		levels[i] = storetest.Level("twoends", fmt.Appendf(nil, `{"kind":"twoends","values":[%d,1,2]}`, i))
	}
	if _, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3,
		Versions: map[string]string{"twoends": "x"}}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// A history: the jobs are done, as most are.
	if _, err := conn.Exec(ctx, `UPDATE jobs SET state = 'done', verdict = 'solved', finished_at = now()`); err != nil {
		t.Fatal(err)
	}
	// The caller has beaten for an hour: it may judge others.
	if _, err := conn.Exec(ctx, `INSERT INTO workers (id, host, pid, beating_since) VALUES ('me', 'h', 1, now() - interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE jobs`); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	var plan []struct {
		Plan map[string]any
	}
	if err := tx.QueryRow(ctx, `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) `+store.TakeOverSQL,
		"me", 15*time.Second, time.Minute).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	blocks := plan[0].Plan["Shared Hit Blocks"].(float64) + plan[0].Plan["Shared Read Blocks"].(float64)
	if blocks > 50 {
		t.Errorf("the takeover read %v blocks with no worker dead; want a handful", blocks)
	}
	if testing.Verbose() {
		t.Logf("the takeover read %v blocks", blocks)
	}
}
