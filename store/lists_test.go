package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
)

// listQueries are one query of each list with each filter, on the history
// store.Seed writes.
func listQueries(levelHash string, cursor time.Time) map[string]func() (string, []any) {
	label := []store.Label{{Key: "project", Value: "p3"}}
	jobs := func(f store.JobFilter) func() (string, []any) {
		f.Limit = 101
		return func() (string, []any) { return store.JobsQuery(f) }
	}
	week := time.Now().Add(-10 * 24 * time.Hour)
	return map[string]func() (string, []any){
		"jobs":                jobs(store.JobFilter{}),
		"jobs?batch":          jobs(store.JobFilter{BatchID: 7}),
		"jobs?kind":           jobs(store.JobFilter{Kind: "sheep"}),
		"jobs?state":          jobs(store.JobFilter{State: string(wire.Failed)}),
		"jobs?verdict":        jobs(store.JobFilter{Verdict: "unsolvable"}),
		"jobs?level":          jobs(store.JobFilter{LevelHash: levelHash}),
		"jobs?label":          jobs(store.JobFilter{Labels: label}),
		"jobs?label=designer": jobs(store.JobFilter{Labels: []store.Label{{Key: "designer", Value: "d7"}}}),
		"jobs?since&until":    jobs(store.JobFilter{Since: week, Until: week.Add(24 * time.Hour)}),
		"jobs?cursor":         jobs(store.JobFilter{After: &store.Position{At: cursor, ID: 1 << 40}}),
		"jobs?kind&verdict&label": jobs(store.JobFilter{Kind: "zuma", Verdict: "solved", Labels: label,
			After: &store.Position{At: cursor, ID: 1 << 40}}),
		"batches": func() (string, []any) { return store.BatchesQuery(store.BatchFilter{Limit: 101}) },
		"batches?label": func() (string, []any) {
			return store.BatchesQuery(store.BatchFilter{Labels: label, Limit: 101})
		},
		"batches?since": func() (string, []any) {
			return store.BatchesQuery(store.BatchFilter{Since: week, Until: week.Add(24 * time.Hour), Limit: 101})
		},
		"levels":      func() (string, []any) { return store.LevelsQuery(store.LevelFilter{Limit: 101}) },
		"levels?kind": func() (string, []any) { return store.LevelsQuery(store.LevelFilter{Kind: "columns", Limit: 101}) },
		"levels?verdict": func() (string, []any) {
			return store.LevelsQuery(store.LevelFilter{Verdict: "unsolvable", Limit: 101})
		},
		"levels?label": func() (string, []any) {
			return store.LevelsQuery(store.LevelFilter{Labels: label, Limit: 101})
		},
		"levels/{hash}/results": func() (string, []any) { return store.LevelResultsQuery(levelHash, nil, 101) },
	}
}

// TestListQueriesUseIndexes checks with EXPLAIN that, on a history large
// enough for the planner to prefer them, every list query reads its rows
// through an index: no sequential scan of a table.
func TestListQueriesUseIndexes(t *testing.T) {
	st, ctx := setup(t)
	if err := st.Seed(ctx, store.SeedParams{Jobs: 100_000, Levels: 20_000, Batches: 10_000, Kinds: kinds.Registry().Names()}); err != nil {
		t.Fatal(err)
	}
	var someLevel string
	if err := st.ListLevels(ctx, store.LevelFilter{Limit: 1}, func(l store.LevelListItem) error {
		someLevel = l.Hash
		return nil
	}); err != nil || someLevel == "" {
		t.Fatalf("no level: %v", err)
	}
	for name, query := range listQueries(someLevel, time.Now().Add(-15*24*time.Hour)) {
		q, args := query()
		plan, err := st.Explain(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if strings.Contains(plan, "Seq Scan") || !strings.Contains(plan, "Index") {
			t.Errorf("%s is not served by an index:\n%s", name, plan)
		}
	}
}
