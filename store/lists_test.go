package store_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
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
		"jobs?state":          jobs(store.JobFilter{State: jobtype.Failed}),
		"jobs?verdict":        jobs(store.JobFilter{Verdict: "unsolvable"}),
		"jobs?level":          jobs(store.JobFilter{LevelHash: levelHash}),
		"jobs?label":          jobs(store.JobFilter{Labels: label}),
		"jobs?label=designer": jobs(store.JobFilter{Labels: []store.Label{{Key: "designer", Value: "d7"}}}),
		"jobs?label&label":    jobs(store.JobFilter{Labels: append(label, store.Label{Key: "chapter", Value: "3"})}),
		"jobs?label&since":    jobs(store.JobFilter{Labels: label, Since: week, Until: week.Add(24 * time.Hour)}),
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
		"levels?kind&verdict": func() (string, []any) {
			return store.LevelsQuery(store.LevelFilter{Kind: "sheep", Verdict: "solved", Limit: 101})
		},
		"levels?label&label": func() (string, []any) {
			return store.LevelsQuery(store.LevelFilter{Labels: append(label, store.Label{Key: "chapter", Value: "3"}), Limit: 101})
		},
		"levels/{hash}/results": func() (string, []any) { return store.LevelResultsQuery(levelHash, nil, nil, 101) },
	}
}

// listIndexes are the indexes that must drive a list: a label filter or a
// level's verdict read in page order, not a walk of every job or level
// that filters them (418 ms p95 for a rare label on 1,000,000 jobs).
var listIndexes = map[string][]string{
	"jobs?label":              {"job_labels_list on job_labels l0", "batch_labels_pkey on batch_labels bl", "jobs_batch_seq on jobs"},
	"jobs?label=designer":     {"job_labels_list on job_labels l0", "batch_labels_pkey on batch_labels bl"},
	"jobs?label&label":        {"job_labels_list on job_labels l0", "batch_labels_pkey on batch_labels bl"},
	"jobs?label&since":        {"job_labels_list on job_labels l0", "batch_labels_pkey"}, // in either plan of windowedBatchLabels
	"jobs?kind&verdict&label": {"job_labels_kind_verdict on job_labels l0", "batch_labels_pkey on batch_labels bl"},
	"levels?verdict":          {"level_verdicts_list on level_verdicts"},
	"levels?kind&verdict":     {"level_verdicts_list_kind on level_verdicts"},
	"levels?label":            {"level_labels_pkey on level_labels ll0"},
	"levels?label&label":      {"level_labels_pkey on level_labels ll0"},
}

// TestListQueriesUseIndexes checks with EXPLAIN that, on a history large
// enough for the planner to prefer them, every list query reads its rows
// through an index: no sequential scan of a table, no sort of every match,
// and the label and level-verdict lists through the indexes built for them
// (listIndexes).
func TestListQueriesUseIndexes(t *testing.T) {
	st, ctx, url := setupURL(t)
	if err := storetest.Seed(ctx, url, storetest.SeedParams{Jobs: 100_000, Levels: 20_000, Batches: 10_000, Kinds: kinds.Registry().Names()}); err != nil {
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
		for _, want := range listIndexes[name] {
			if !strings.Contains(plan, want) {
				t.Errorf("%s does not read %s:\n%s", name, want, plan)
			}
		}
		// A page in index order needs no sort; a bitmap scan would collect
		// every match first. (Lists of a few rows, such as one level's
		// jobs, may be sorted.)
		if len(listIndexes[name]) > 0 && collectsMatches(plan) {
			t.Errorf("%s sorts or collects its matches:\n%s", name, plan)
		}
	}
	// A project's stats read its jobs outside batches (a tenth of the
	// history, all of project 1's) through jobs_single, not all jobs.
	for _, q := range store.LoneStatsSQL {
		plan, err := st.Explain(ctx, q, time.Unix(0, 0), time.Now(), []int64{1})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(plan, "Seq Scan on jobs ") || !strings.Contains(plan, "Scan on jobs_single") &&
			!strings.Contains(plan, "using jobs_single") {
			t.Errorf("a project's stats do not read jobs_single:\n%s", plan)
		}
	}
}

// collectsMatches reports whether a plan sorts its rows or reads them with
// a bitmap scan, except the probes of one level's few jobs (LevelsQuery:
// for several labels, and for a level a labelled batch created), which
// the planner may do either way.
func collectsMatches(plan string) bool {
	lines := strings.Split(plan, "\n")
	for i, l := range lines {
		// A sort of what a LIMIT let through (one source of a label's
		// page, at most a page of rows, see JobsQuery) is not a sort of
		// every match.
		if strings.Contains(l, "Sort Key") && !sortsALimit(lines[i+1:]) && !sortsAWindow(lines, i) {
			return true
		}
		if strings.Contains(l, "Bitmap Heap Scan") && !windowedBatchLabels(lines, i) &&
			(i+1 == len(lines) || !strings.Contains(lines[i+1], "level_hash = l.hash)") && !strings.Contains(lines[i+1], "level_hash = ll0.level_hash)")) {
			return true
		}
	}
	return false
}

// TestListPathsFollowWrites checks that job_labels, level_labels and a
// level's newest definitive result (migrations/00009) follow every write
// the lists read them for: batch labels applied to the batch's jobs, a
// job's own labels, non-string label values (not listed: label=k:v
// matches a string), a verdict set when a result is stored, a cached
// result, and a newer definitive result replacing an older one while an
// unknown one does not.
func TestListPathsFollowWrites(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	a, b := twoends("5,1,2"), twoends("6,1,2")
	batch, err := st.CreateBatch(ctx, store.BatchParams{Levels: []store.Level{a, b}, Priority: "bulk", MaxAttempts: 3,
		Labels: []byte(`{"project":"森","chapter":3}`), Versions: map[string]string{"twoends": "v1"}})
	if err != nil {
		t.Fatal(err)
	}
	solo, err := st.CreateJob(ctx, store.JobParams{Level: a, Priority: "interactive", MaxAttempts: 3, SolverVersion: "v1",
		Labels: []byte(`{"designer":"Zoë"}`)})
	if err != nil {
		t.Fatal(err)
	}
	jobIDs := func(f store.JobFilter) []int64 {
		t.Helper()
		var out []int64
		if err := st.ListJobs(ctx, f, func(j store.JobListItem) error {
			out = append(out, j.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	levels := func(f store.LevelFilter) map[string]string { // hash → verdict ("" for none)
		t.Helper()
		out := map[string]string{}
		if err := st.ListLevels(ctx, f, func(l store.LevelListItem) error {
			out[l.Hash] = ""
			if l.Verdict != nil {
				out[l.Hash] = *l.Verdict
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var batchJobs []int64
	if err := st.ListJobs(ctx, store.JobFilter{BatchID: batch}, func(j store.JobListItem) error {
		batchJobs = append(batchJobs, j.ID)
		return nil
	}); err != nil || len(batchJobs) != 2 {
		t.Fatalf("batch jobs %v: %v", batchJobs, err)
	}
	forest := []store.Label{{Key: "project", Value: "森"}}
	if got := jobIDs(store.JobFilter{Labels: forest}); !slices.Equal(got, batchJobs) {
		t.Fatalf("batch label on its jobs: %v, want %v", got, batchJobs)
	}
	if got := jobIDs(store.JobFilter{Labels: []store.Label{{Key: "chapter", Value: "3"}}}); len(got) != 0 {
		t.Fatalf("a number label matched a string: %v", got)
	}
	zoe := []store.Label{{Key: "designer", Value: "Zoë"}}
	if got := jobIDs(store.JobFilter{Labels: zoe}); !slices.Equal(got, []int64{solo.ID}) {
		t.Fatalf("job's own label: %v", got)
	}
	if got := levels(store.LevelFilter{Labels: forest}); len(got) != 2 {
		t.Fatalf("levels labelled 森: %v", got)
	}
	if got := levels(store.LevelFilter{Labels: zoe}); len(got) != 1 || got[a.Hash] != "" {
		t.Fatalf("levels labelled Zoë: %v", got)
	}
	// Level a has a job labelled 森 and another labelled Zoë, but no job
	// with both: several labels must be on one job.
	if got := levels(store.LevelFilter{Labels: append(slices.Clone(forest), zoe...)}); len(got) != 0 {
		t.Fatalf("levels with a job labelled both 森 and Zoë: %v", got)
	}
	both := append(slices.Clone(forest), store.Label{Key: "project", Value: "森"})
	if got := levels(store.LevelFilter{Labels: both}); len(got) != 2 {
		t.Fatalf("levels labelled 森 twice: %v", got)
	}

	// The solo job on level a is solved: its verdict reaches job_labels,
	// and level a's newest definitive result is that one.
	run(t, st, solo.ID, "v1", solved(4))
	if got := jobIDs(store.JobFilter{Labels: zoe, Verdict: "solved", Kind: "twoends"}); !slices.Equal(got, []int64{solo.ID}) {
		t.Fatalf("label+verdict+kind after the result: %v", got)
	}
	if got := levels(store.LevelFilter{Verdict: "solved"}); len(got) != 1 || got[a.Hash] != "solved" {
		t.Fatalf("solved levels: %v", got)
	}
	// A newer version finds level a unsolvable: the level moves to
	// unsolvable; an unknown result afterwards does not move it back.
	newer, err := st.CreateJob(ctx, store.JobParams{Level: a, Priority: "interactive", MaxAttempts: 3, SolverVersion: "v2"})
	if err != nil {
		t.Fatal(err)
	}
	run(t, st, newer.ID, "v2", solver.Result{Verdict: solver.Unsolvable, Optimal: true, Proof: "exhausted"})
	unknown, err := st.CreateJob(ctx, store.JobParams{Level: a, Priority: "interactive", MaxAttempts: 3, SolverVersion: "v3"})
	if err != nil {
		t.Fatal(err)
	}
	run(t, st, unknown.ID, "v3", solver.Result{Verdict: solver.Unknown})
	if got := levels(store.LevelFilter{Verdict: "solved"}); len(got) != 0 {
		t.Fatalf("solved levels after the unsolvable result: %v", got)
	}
	if got := levels(store.LevelFilter{Verdict: "unsolvable", Labels: forest}); len(got) != 1 || got[a.Hash] != "unsolvable" {
		t.Fatalf("unsolvable levels labelled 森: %v", got)
	}
	// A job created on a level with a definitive result of its version is
	// done at once (cached) with that verdict in job_labels too.
	cached, err := st.CreateJob(ctx, store.JobParams{Level: a, Priority: "interactive", MaxAttempts: 3, SolverVersion: "v2",
		Labels: []byte(`{"designer":"Zoë"}`)})
	if err != nil || !cached.Cached {
		t.Fatalf("cached job: %+v %v", cached, err)
	}
	if got := jobIDs(store.JobFilter{Labels: zoe, Verdict: "unsolvable"}); !slices.Equal(got, []int64{cached.ID}) {
		t.Fatalf("cached job by label and verdict: %v", got)
	}
	// Paging by label follows the cursor.
	first := jobIDs(store.JobFilter{Labels: zoe, Limit: 1})
	var last store.JobListItem
	_ = st.ListJobs(ctx, store.JobFilter{Labels: zoe, Limit: 1}, func(j store.JobListItem) error { last = j; return nil })
	rest := jobIDs(store.JobFilter{Labels: zoe, After: &store.Position{At: last.CreatedAt, ID: last.ID}})
	if got := append(first, rest...); !slices.Equal(got, []int64{cached.ID, solo.ID}) {
		t.Fatalf("label pages: %v", got)
	}
}

// windowedBatchLabels reports whether line i of a plan is a bitmap scan
// of batch_labels bounded by a creation window on both sides (a label
// list with since and until). It reads one row per labelled batch of the
// window, not per job, so collecting and sorting them is bounded by the
// window; the planner takes it instead of the ordered index scan when it
// expects few such batches, and either plan is fine. (With a history's
// times spread evenly it did so for one day of 10,000 batches, about 17
// rows, in most runs.)
func windowedBatchLabels(lines []string, i int) bool {
	return strings.Contains(lines[i], "Bitmap Heap Scan on batch_labels ") && i+1 < len(lines) &&
		strings.Contains(lines[i+1], "created_at >=") && strings.Contains(lines[i+1], "created_at <")
}

// sortsAWindow reports whether the sort whose Sort Key is line i of a plan
// sorts only what a windowed scan of batch_labels found (see
// windowedBatchLabels): the sort's input, the lines below it indented
// deeper than the sort, reads rows through no other bitmap scan, no
// sequential scan and no other sort.
func sortsAWindow(lines []string, i int) bool {
	depth := indent(lines[i]) // of the sort's details and of its input's nodes
	windowed := false
	for j := i + 1; j < len(lines) && indent(lines[j]) >= depth; j++ {
		switch l := lines[j]; {
		case windowedBatchLabels(lines, j):
			windowed = true
		case strings.Contains(l, "Bitmap Heap Scan"), strings.Contains(l, "Seq Scan"), strings.Contains(l, "Sort Key"):
			return false
		}
	}
	return windowed
}

// TestCollectsMatches checks the plan rule on a plan the planner made for
// jobs?label&since (testdata/plan-label-window.txt: a window's labelled
// batches read with a bitmap scan and sorted) and on variants of it that
// collect or sort what no window bounds.
func TestCollectsMatches(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/plan-label-window.txt")
	if err != nil {
		t.Fatal(err)
	}
	plan := string(b)
	window := regexp.MustCompile(` AND \(created_at >= [^)]*\) AND \(created_at < [^)]*\)`)
	if n := len(window.FindAllString(plan, -1)); n != 3 { // job_labels' index, the bitmap's recheck and index
		t.Fatalf("the plan has %d windows, want 3", n)
	}
	for _, tc := range []struct {
		name string
		plan string
		want bool
	}{
		{"the window's batches", plan, false},
		{"no window", window.ReplaceAllString(plan, ""), true},
		{"a bitmap scan of jobs", strings.Replace(plan, "Bitmap Heap Scan on batch_labels bl", "Bitmap Heap Scan on jobs j_1", 1), true},
		{"a scan of every job below the sort", strings.Replace(plan, "Index Scan Backward using jobs_batch_seq on jobs j_1", "Seq Scan on jobs j_1", 1), true},
	} {
		if tc.plan == plan && tc.want {
			t.Fatalf("%s: the variant changed nothing", tc.name)
		}
		if got := collectsMatches(tc.plan); got != tc.want {
			t.Errorf("%s: collectsMatches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// indent is the number of leading spaces of a plan line.
func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// sortsALimit reports whether the plan lines below a Sort's key start with
// a Limit (under at most subquery scans, the append of a union's sources
// and its duplicate removal, each source LIMITed): the sort's input is
// bounded.
func sortsALimit(below []string) bool {
	for _, l := range below {
		switch t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "->")); {
		case strings.HasPrefix(t, "Limit"):
			return true
		case strings.HasPrefix(t, "Subquery Scan"), strings.HasPrefix(t, "Sort Key"), strings.HasPrefix(t, "Presorted Key"),
			strings.HasPrefix(t, "Append"), strings.HasPrefix(t, "Unique"), strings.HasPrefix(t, "HashAggregate"),
			strings.HasPrefix(t, "Group Key"):
		default:
			return false
		}
	}
	return false
}

// TestLabelPagesMergeBothSources pages through label lists whose matches
// come from both sources (jobs with an own label, and the jobs and levels
// of labelled batches, see JobsQuery and LevelsQuery) a few rows at a
// time, and checks that the pages together are exactly the matches, newest
// first, each once: the jobs of a batch created after a labelled job
// interleave with it by creation time, an own label overriding the batch's
// drops the job from the batch's value, and a level both sources find is
// listed once.
func TestLabelPagesMergeBothSources(t *testing.T) {
	t.Parallel()
	st, ctx := setup(t)
	var want []int64 // job ids with label stage:beta, in creation order
	wantLevels := map[string]bool{}
	own := func(values string, labels string) {
		t.Helper()
		lvl := twoends(values)
		j, err := st.CreateJob(ctx, store.JobParams{Level: lvl, Priority: "interactive", MaxAttempts: 3, SolverVersion: "v",
			Labels: []byte(labels)})
		if err != nil {
			t.Fatal(err)
		}
		if labels == `{"stage":"beta"}` {
			want = append(want, j.ID)
			wantLevels[lvl.Hash] = true
		}
	}
	batch := func(from, n int, labels string, overrideAt int) {
		t.Helper()
		levels := make([]store.Level, n)
		for i := range levels {
			levels[i] = twoends(fmt.Sprint(from + i))
			if i == overrideAt {
				levels[i].Labels = []byte(`{"stage":"gamma"}`)
			}
		}
		id, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: "bulk", MaxAttempts: 3,
			Labels: []byte(labels)})
		if err != nil {
			t.Fatal(err)
		}
		if labels != `{"stage":"beta"}` {
			return
		}
		if err := st.BatchResults(ctx, id, func(r store.BatchResult) error {
			if int(r.Seq) != overrideAt {
				want = append(want, r.JobID)
				wantLevels[r.LevelHash] = true
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	own("1,1", `{"stage":"beta"}`)
	batch(100, 7, `{"stage":"beta"}`, 3)
	own("2,2", `{"stage":"alpha"}`)
	batch(200, 5, `{"stage":"alpha"}`, -1)
	own("3,3", `{"stage":"beta"}`)
	batch(300, 9, `{"stage":"beta"}`, -1)
	own("101", `{"stage":"beta"}`)        // a level of the first batch again
	batch(104, 2, `{"stage":"beta"}`, -1) // a level of the first batch, reused
	slices.Reverse(want)

	var got []int64
	var after *store.Position
	for page := 0; ; page++ {
		n := 0
		if err := st.ListJobs(ctx, store.JobFilter{Labels: []store.Label{{Key: "stage", Value: "beta"}}, After: after, Limit: 3},
			func(j store.JobListItem) error {
				got = append(got, j.ID)
				after = &store.Position{At: j.CreatedAt, ID: j.ID}
				n++
				return nil
			}); err != nil {
			t.Fatal(err)
		}
		if n < 3 || page > 100 {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("jobs labelled stage:beta, 3 a page:\n got %v\nwant %v", got, want)
	}

	gotLevels := map[string]int{}
	var last *store.Position
	for page := 0; ; page++ {
		n := 0
		if err := st.ListLevels(ctx, store.LevelFilter{Labels: []store.Label{{Key: "stage", Value: "beta"}}, After: last, Limit: 2},
			func(l store.LevelListItem) error {
				gotLevels[l.Hash]++
				last = &store.Position{At: l.CreatedAt, Key: l.Hash}
				n++
				return nil
			}); err != nil {
			t.Fatal(err)
		}
		if n < 2 || page > 100 {
			break
		}
	}
	for h, n := range gotLevels {
		if n != 1 || !wantLevels[h] {
			t.Errorf("level %s listed %d times (labelled stage:beta: %v)", h, n, wantLevels[h])
		}
	}
	if len(gotLevels) != len(wantLevels) {
		t.Errorf("%d levels listed, want %d", len(gotLevels), len(wantLevels))
	}
}
