package store_test

import (
	"fmt"
	"testing"

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
