package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/store"
)

// TestALargeBatchIsAnalyzed checks that a batch that at least doubles jobs
// (and has 1,000 jobs or more) is followed by an ANALYZE, and that other
// batches are not: without it, a young installation's first large batch
// ran for up to a minute on plans made for empty tables (store/stats.go).
// analyze_count counts only explicit ANALYZEs, not autovacuum's.
func TestALargeBatchIsAnalyzed(t *testing.T) {
	t.Parallel()
	st, ctx, conn := setupConn(t)
	next := 0
	for _, step := range []struct {
		name         string
		jobs         int
		wantAnalyzes int
	}{
		{"below the threshold", 999, 0},
		{"the first large batch", 1000, 1},
		{"smaller than jobs was", 1000, 1},
		{"larger than jobs was", 3000, 2},
	} {
		levels := make([]store.Level, step.jobs)
		for i := range levels {
			levels[i] = twoends(fmt.Sprintf("%d,1", next))
			next++
		}
		if _, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3}); err != nil {
			t.Fatal(err)
		}
		st.WaitBackground()
		var analyzes int
		if err := conn.QueryRow(ctx, `SELECT analyze_count FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass`).Scan(&analyzes); err != nil {
			t.Fatal(err)
		}
		if analyzes != step.wantAnalyzes {
			t.Fatalf("%s (%d jobs): jobs analyzed %d times, want %d", step.name, step.jobs, analyzes, step.wantAnalyzes)
		}
	}
}

// TestVacuumDueDoesWhatAutovacuumWould checks that VacuumDue, the store's
// stand-in for an autovacuum that is off (store/vacuum.go), vacuums jobs
// once a canceled batch left more dead rows than autovacuum's threshold,
// and leaves it alone otherwise. vacuum_count counts only explicit
// VACUUMs, not autovacuum's.
func TestVacuumDueDoesWhatAutovacuumWould(t *testing.T) {
	t.Parallel()
	st, ctx, conn := setupConn(t)
	vacuums := func() int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	levels := make([]store.Level, 1000)
	for i := range levels {
		levels[i] = twoends(fmt.Sprintf("%d,2", i))
	}
	batch, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	st.WaitBackground() // its ANALYZE: jobs now counts 1,000 rows
	// Whatever a new database has due goes first.
	if _, err := st.VacuumDue(ctx); err != nil {
		t.Fatal(err)
	}
	before := vacuums()
	for _, step := range []struct {
		name       string
		cancel     bool
		wantVacuum bool
	}{
		{"nothing changed", false, false},
		{"the batch canceled: 1,000 dead rows", true, true},
	} {
		if step.cancel {
			if _, err := st.CancelBatch(ctx, batch); err != nil {
				t.Fatal(err)
			}
			waitForStats(t, conn, `SELECT n_dead_tup >= 1000 FROM pg_stat_user_tables WHERE relid = 'jobs'::regclass`)
		}
		tables, err := st.VacuumDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := vacuums() > before; got != step.wantVacuum {
			t.Fatalf("%s: jobs vacuumed %v (tables done: %v), want %v", step.name, got, tables, step.wantVacuum)
		}
		before = vacuums()
	}
}

// waitForStats waits until query, over the cumulative statistics (which
// a backend reports up to seconds after its transaction), says true.
func waitForStats(t *testing.T, conn *pgx.Conn, query string) {
	t.Helper()
	waittest.WaitFor(t, 20*time.Second, query, func() bool {
		// Outside a transaction, each query reads the statistics afresh.
		var ok bool
		if err := conn.QueryRow(t.Context(), query).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	})
}
