package api_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// labelsOf decodes a job's labels.
func labelsOf(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	m := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func listJobs(t *testing.T, c *client.Client, f client.Filter) []wire.JobListItem {
	t.Helper()
	var out []wire.JobListItem
	if err := c.ListJobs(t.Context(), f, func(j wire.JobListItem) error {
		out = append(out, j)
		return nil
	}); err != nil {
		t.Fatalf("list jobs %v: %v", f, err)
	}
	return out
}

func ids(jobs []wire.JobListItem) []int64 {
	var out []int64
	for _, j := range jobs {
		out = append(out, j.ID)
	}
	return out
}

// TestListJobsEveryFilter runs real jobs (batches with labels, single jobs
// with labels of their own, non-ASCII text, a canceled job), then checks
// each filter of GET /v1/jobs against the same filter applied in Go to the
// unfiltered list, with small pages so that cursors are followed.
func TestListJobsEveryFilter(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	c := client.New(f.url)
	ctx := t.Context()
	var levels []json.RawMessage
	for i := range 6 {
		levels = append(levels, json.RawMessage(fmt.Sprintf(`{"kind":"twoends","values":[%d,1,%d]}`, i, i%3)))
	}
	levels = append(levels, json.RawMessage(`{"kind":"zuma","board":"RRWWRRBBRR"}`))
	forest, err := c.CreateBatch(ctx, levels, jobtype.Options{Labels: json.RawMessage(`{"project":"forest","chapter":"3"}`)})
	if err != nil {
		t.Fatal(err)
	}
	desert, err := c.CreateBatch(ctx, levels[:3], jobtype.Options{Labels: json.RawMessage(`{"project":"desert"}`)})
	if err != nil {
		t.Fatal(err)
	}
	solo, err := c.CreateJob(ctx, json.RawMessage(`{"kind":"twoends","values":[9,8,7,1]}`),
		jobtype.Options{Labels: json.RawMessage(`{"project":"forêt 森","designer":"Zoë"}`)})
	if err != nil {
		t.Fatal(err)
	}
	bulk, err := c.CreateJob(ctx, levels[0], jobtype.Options{Priority: "bulk"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int64{forest, desert} {
		if got, err := c.WaitBatch(ctx, b, 30*time.Second); err != nil || got.Done != 1 {
			t.Fatalf("batch %d: %+v %v", b, got, err)
		}
	}
	for _, id := range []int64{solo.ID, bulk.ID} {
		if j, err := c.WaitJob(ctx, id, 30*time.Second); err != nil || !j.State.Final() {
			t.Fatalf("job %d: %+v %v", id, j, err)
		}
	}
	// A queued job that is then canceled, never run. The test's worker may
	// claim and solve it between the two statements (a loaded machine
	// delays the cancel, not the dispatcher), so a try whose cancel finds
	// the job done already starts over with another level.
	for try := 0; ; try++ {
		lvl := store.Level{Hash: fmt.Sprintf("%064x", 0xab00+try), Kind: "twoends", Body: fmt.Appendf(nil, `{"kind":"twoends","values":[%d]}`, 1000+try)}
		canceled, err := f.store.CreateJob(ctx, store.JobParams{Level: lvl, Priority: "bulk", MaxAttempts: 1, SolverVersion: "x"})
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.store.CancelJob(ctx, canceled.ID)
		if err != nil {
			t.Fatal(err)
		}
		if st == jobtype.Canceled {
			break
		}
		if try == 20 {
			t.Fatalf("20 jobs were done before they could be canceled")
		}
	}

	all := listJobs(t, c, client.Filter{"limit": {"3"}})
	if len(all) != 7+3+3 {
		t.Fatalf("all jobs: %d, want 13", len(all))
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID <= b.ID) {
			t.Fatalf("not newest first at %d: %+v then %+v", i, a, b)
		}
	}
	mid := all[6].CreatedAt
	hash0 := all[len(all)-1].LevelHash
	cases := []struct {
		name   string
		filter client.Filter
		keep   func(j wire.JobListItem) bool
	}{
		{"batch", client.Filter{"batch": {fmt.Sprint(forest)}}, func(j wire.JobListItem) bool {
			return j.BatchID != nil && *j.BatchID == forest
		}},
		{"kind", client.Filter{"kind": {"zuma"}}, func(j wire.JobListItem) bool { return j.Kind == "zuma" }},
		{"state", client.Filter{"state": {"canceled"}}, func(j wire.JobListItem) bool { return j.State == "canceled" }},
		{"verdict", client.Filter{"verdict": {"solved"}}, func(j wire.JobListItem) bool {
			return j.Verdict != nil && *j.Verdict == "solved"
		}},
		{"level", client.Filter{"level": {hash0}}, func(j wire.JobListItem) bool { return j.LevelHash == hash0 }},
		{"batch label applies to its jobs", client.Filter{"label": {"project:forest"}}, func(j wire.JobListItem) bool {
			return j.BatchID != nil && *j.BatchID == forest
		}},
		{"two labels AND", client.Filter{"label": {"project:forest", "chapter:3"}}, func(j wire.JobListItem) bool {
			return j.BatchID != nil && *j.BatchID == forest
		}},
		{"labels that exclude each other", client.Filter{"label": {"project:forest", "project:desert"}},
			func(wire.JobListItem) bool { return false }},
		{"non-ASCII label", client.Filter{"label": {"project:forêt 森"}}, func(j wire.JobListItem) bool { return j.ID == solo.ID }},
		{"job's own label", client.Filter{"label": {"designer:Zoë"}}, func(j wire.JobListItem) bool { return j.ID == solo.ID }},
		{"since", client.Filter{"since": {mid.Format(time.RFC3339Nano)}}, func(j wire.JobListItem) bool { return !j.CreatedAt.Before(mid) }},
		{"until", client.Filter{"until": {mid.Format(time.RFC3339Nano)}}, func(j wire.JobListItem) bool { return j.CreatedAt.Before(mid) }},
		{"kind and verdict and label", client.Filter{"kind": {"twoends"}, "verdict": {"solved"}, "label": {"project:desert"}},
			func(j wire.JobListItem) bool {
				return j.Kind == "twoends" && j.Verdict != nil && *j.Verdict == "solved" && j.BatchID != nil && *j.BatchID == desert
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want []int64
			for _, j := range all {
				if tc.keep(j) {
					want = append(want, j.ID)
				}
			}
			tc.filter["limit"] = []string{"2"}
			got := ids(listJobs(t, c, tc.filter))
			if !slices.Equal(got, want) {
				t.Fatalf("%v: got %v, want %v", tc.filter, got, want)
			}
		})
	}
	// The filters are not vacuous: each selects some jobs and not all.
	for _, n := range []int{len(listJobs(t, c, client.Filter{"kind": {"zuma"}})), len(listJobs(t, c, client.Filter{"state": {"canceled"}})),
		len(listJobs(t, c, client.Filter{"label": {"project:forêt 森"}}))} {
		if n == 0 || n == len(all) {
			t.Fatalf("a filter selected %d of %d jobs", n, len(all))
		}
	}
	if l := labelsOf(t, all[slices.IndexFunc(all, func(j wire.JobListItem) bool { return j.ID == solo.ID })].Labels); l["project"] != "forêt 森" {
		t.Fatalf("labels came back as %v", l)
	}
}

func TestListBatchesAndLevels(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, true)
	c := client.New(f.url)
	ctx := t.Context()
	zuma := json.RawMessage(`{"kind":"zuma","board":"RRWWRRBBRR"}`)
	two := json.RawMessage(`{"kind":"twoends","values":[4,1,2]}`)
	b1, err := c.CreateBatch(ctx, []json.RawMessage{zuma, two}, jobtype.Options{Labels: json.RawMessage(`{"project":"森"}`)})
	if err != nil {
		t.Fatal(err)
	}
	b2, err := c.CreateBatch(ctx, []json.RawMessage{two}, jobtype.Options{Budget: solver.Budget{MaxMS: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int64{b1, b2} {
		if got, err := c.WaitBatch(ctx, b, 30*time.Second); err != nil || got.Done != 1 {
			t.Fatalf("batch %d: %+v %v", b, got, err)
		}
	}
	var batches []int64
	collect := func(fl client.Filter) []int64 {
		batches = nil
		if err := c.ListBatches(ctx, fl, func(b wire.BatchListItem) error {
			batches = append(batches, b.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return batches
	}
	if got := collect(client.Filter{"limit": {"1"}}); !slices.Equal(got, []int64{b2, b1}) {
		t.Fatalf("batches: %v", got)
	}
	if got := collect(client.Filter{"label": {"project:森"}}); !slices.Equal(got, []int64{b1}) {
		t.Fatalf("batches by label: %v", got)
	}
	if got := collect(client.Filter{"since": {time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}}); len(got) != 0 {
		t.Fatalf("batches from the future: %v", got)
	}

	var levels []wire.LevelListItem
	list := func(fl client.Filter) []wire.LevelListItem {
		levels = nil
		if err := c.ListLevels(ctx, fl, func(l wire.LevelListItem) error {
			levels = append(levels, l)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return levels
	}
	all := list(client.Filter{"limit": {"1"}})
	if len(all) != 2 {
		t.Fatalf("levels: %+v", all)
	}
	var twoHash string
	for _, l := range all {
		if l.Kind == "twoends" {
			twoHash = l.Hash
			if l.Verdict == nil || *l.Verdict != "solved" || l.Value == nil {
				t.Fatalf("twoends level's newest definitive result: %+v", l)
			}
		}
	}
	if got := list(client.Filter{"kind": {"twoends"}}); len(got) != 1 || got[0].Hash != twoHash {
		t.Fatalf("levels of kind twoends: %+v", got)
	}
	if got := list(client.Filter{"verdict": {"solved"}}); !slices.ContainsFunc(got, func(l wire.LevelListItem) bool { return l.Hash == twoHash }) {
		t.Fatalf("solved levels: %+v", got)
	}
	if got := list(client.Filter{"label": {"project:森"}}); len(got) != 2 {
		t.Fatalf("levels labelled 森: %+v", got)
	}
	if got := list(client.Filter{"label": {"project:none"}}); len(got) != 0 {
		t.Fatalf("levels labelled none: %+v", got)
	}
	var results []wire.LevelResultItem
	if err := c.LevelResults(ctx, twoHash, func(r wire.LevelResultItem) error {
		results = append(results, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The twoends level ran in both batches (solved twice, or once and then
	// a cached copy), newest first by (created_at, job_id). created_at is
	// its transaction's start, so the order need not be the jobs' ids: b2's
	// job may be solved in a transaction that began before b1's result.
	newestFirst := func(a, b wire.LevelResultItem) bool {
		return a.CreatedAt.After(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.JobID > b.JobID)
	}
	if len(results) != 2 || !newestFirst(results[0], results[1]) || results[0].Plan != nil {
		t.Fatalf("results of the level: %+v", results)
	}
	if code, _ := request(t, "GET", f.url+"/v1/levels/"+strings.Repeat("0", 64)+"/results", "", ""); code != 404 {
		t.Fatalf("results of an unknown level: %d", code)
	}
}

func TestListBadParameters(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	for _, q := range []struct{ path, field string }{
		{"/v1/jobs?kind=chess", "kind"},
		{"/v1/jobs?state=sleeping", "state"},
		{"/v1/jobs?verdict=maybe", "verdict"},
		{"/v1/jobs?batch=-1", "batch"},
		{"/v1/jobs?level=abc", "level"},
		{"/v1/jobs?label=nokey", "label"},
		{"/v1/jobs?label=:v", "label"},
		{"/v1/jobs?since=yesterday", "since"},
		{"/v1/jobs?limit=0", "limit"},
		{"/v1/jobs?limit=1001", "limit"},
		{"/v1/jobs?cursor=zzz", "cursor"},
		{"/v1/jobs?verdit=solved", "verdit"},
		{"/v1/batches?kind=zuma", "kind"},
		{"/v1/levels?verdict=unknown", "verdict"},
		{"/v1/levels?cursor=" + url.QueryEscape("MTIz.NDU2"), "cursor"},
		{"/v1/jobs/1?wait=forever", "wait"},
		{"/v1/jobs/1?wait=61s", "wait"},
		{"/v1/batches/1?wait=-1s", "wait"},
	} {
		code, body := request(t, "GET", f.url+q.path, "", "")
		var e struct{ Field string }
		_ = json.Unmarshal([]byte(body), &e)
		if code != 400 || e.Field != q.field {
			t.Errorf("GET %s = %d %s, want 400 naming %s", q.path, code, body, q.field)
		}
	}
	if code, body := request(t, "GET", f.url+"/v1/jobs?limit=1000", "", ""); code != 200 || body != "{\"items\":[]}\n" {
		t.Fatalf("empty list: %d %q", code, body)
	}
}

// TestPaginationWhileJobsArrive pages through the jobs with small pages
// while new jobs keep being stored between the requests: every job that
// existed at the start is seen exactly once, in order.
func TestPaginationWhileJobsArrive(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{}, false)
	ctx := t.Context()
	create := func(i int) int64 {
		body := fmt.Sprintf(`{"kind":"twoends","values":[%d]}`, i)
		lvl := store.Level{Hash: fmt.Sprintf("%064x", i), Kind: "twoends", Body: []byte(body)}
		j, err := f.store.CreateJob(ctx, store.JobParams{Level: lvl, Priority: "bulk", MaxAttempts: 1, SolverVersion: "x"})
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	var before []int64
	for i := range 40 {
		before = append(before, create(i))
	}
	c := client.New(f.url)
	q := client.Filter{"limit": {"3"}}
	seen := map[int64]int{}
	var order []int64
	for n := 1000; ; n++ {
		items, next, err := c.ListPage(ctx, "/v1/jobs", q)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range items {
			var j wire.JobListItem
			if err := json.Unmarshal(raw, &j); err != nil {
				t.Fatal(err)
			}
			seen[j.ID]++
			order = append(order, j.ID)
		}
		create(n) // a new job arrives between two pages
		if next == "" {
			break
		}
		q.Set("cursor", next)
	}
	for id, n := range seen {
		if n > 1 {
			t.Fatalf("job %d seen %d times", id, n)
		}
	}
	for _, id := range before {
		if seen[id] != 1 {
			t.Fatalf("job %d was skipped", id)
		}
	}
	if !slices.IsSortedFunc(order, func(a, b int64) int { return int(b - a) }) {
		t.Fatalf("not newest first: %v", order)
	}
}

// TestBatchItemLabels posts batches whose items carry labels of their own
// ({"level": …, "labels": …}), in the object form and as NDJSON: each job
// has its batch's labels with its own on top (a key of both takes the
// item's value), a label filter finds it, the level is stored without its
// labels (the same hash as the bare level), and a bad item is a 400 that
// names it.
func TestBatchItemLabels(t *testing.T) {
	t.Parallel()
	f := setup(t, api.Config{Metrics: prometheus.NewRegistry()}, false)
	c := client.New(f.url)
	ctx := t.Context()
	bare := json.RawMessage(`{"kind":"twoends","values":[7,1,2]}`)
	items := []json.RawMessage{
		json.RawMessage(`{"level":{"kind":"twoends","values":[7,1,2]},"labels":{"file":"levels/森.json","project":"mine"}}`),
		json.RawMessage(`{"kind":"twoends","values":[8,1,2]}`),
		json.RawMessage(`{"labels":{"file":"b.json"},"level":{"kind":"twoends","values":[9,1,2]}}`),
	}
	for _, tc := range []struct {
		name  string
		opts  jobtype.Options // labels: the object form; none: NDJSON
		batch map[string]any
	}{
		{"object form with batch labels", jobtype.Options{Labels: json.RawMessage(`{"project":"forest","chapter":"3"}`)},
			map[string]any{"project": "forest", "chapter": "3"}},
		{"ndjson without batch labels", jobtype.Options{}, map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := c.CreateBatch(ctx, items, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			jobs := listJobs(t, c, client.Filter{"batch": {fmt.Sprint(id)}})
			if len(jobs) != 3 {
				t.Fatalf("jobs of the batch: %+v", jobs)
			}
			slices.SortFunc(jobs, func(a, b wire.JobListItem) int { return int(*a.Seq - *b.Seq) })
			want := []map[string]any{maps.Clone(tc.batch), maps.Clone(tc.batch), maps.Clone(tc.batch)}
			want[0]["file"], want[0]["project"] = "levels/森.json", "mine"
			want[2]["file"] = "b.json"
			for i, j := range jobs {
				if got := labelsOf(t, j.Labels); !maps.Equal(got, want[i]) {
					t.Errorf("job %d labels %v, want %v", i, got, want[i])
				}
			}
			got := ids(listJobs(t, c, client.Filter{"batch": {fmt.Sprint(id)}, "label": {"file:levels/森.json"}}))
			if !slices.Equal(got, []int64{jobs[0].ID}) {
				t.Fatalf("jobs by the item's label: %v, want %v", got, jobs[0].ID)
			}
			// The item's project overrides the batch's: the job is found
			// by its own value only, and by the batch's other labels.
			got = ids(listJobs(t, c, client.Filter{"batch": {fmt.Sprint(id)}, "label": {"project:mine"}}))
			if !slices.Equal(got, []int64{jobs[0].ID}) {
				t.Fatalf("jobs by the overriding label: %v, want %v", got, jobs[0].ID)
			}
			if p, ok := tc.batch["project"]; ok {
				got = ids(listJobs(t, c, client.Filter{"batch": {fmt.Sprint(id)}, "label": {"project:" + p.(string)}}))
				slices.Sort(got)
				if want := []int64{jobs[1].ID, jobs[2].ID}; !slices.Equal(got, want) {
					t.Fatalf("jobs by the batch's project: %v, want %v (not the job whose own project overrides it)", got, want)
				}
				got = ids(listJobs(t, c, client.Filter{"batch": {fmt.Sprint(id)}, "label": {"chapter:3", "project:mine"}}))
				if !slices.Equal(got, []int64{jobs[0].ID}) {
					t.Fatalf("jobs by the batch's chapter and the item's project: %v, want %v", got, jobs[0].ID)
				}
			}
			lvl, err := c.CreateJob(ctx, bare, jobtype.Options{})
			if err != nil || lvl.LevelHash != jobs[0].LevelHash {
				t.Fatalf("the bare level's hash %q differs from the labelled item's %q (%v)", lvl.LevelHash, jobs[0].LevelHash, err)
			}
		})
	}
	for _, tc := range []struct{ item, field string }{
		{`{"level":{"kind":"twoends","values":[1,2]},"labels":["x"]}`, "labels"},
		{`{"level":{"kind":"twoends","values":[1,2]},"priority":"bulk"}`, "priority"},
		{`{"level":{"kind":"chess"}}`, "kind"},
	} {
		_, err := c.CreateBatch(ctx, []json.RawMessage{bare, json.RawMessage(tc.item)}, jobtype.Options{})
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != 400 || len(apiErr.Errors) != 1 ||
			apiErr.Errors[0].Index != 1 || apiErr.Errors[0].Field != tc.field {
			t.Errorf("%s: %v %+v, want a 400 naming item 1's %s", tc.item, err, apiErr, tc.field)
		}
	}
}
