package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/solver/columns"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/solver/twoends"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
)

// RunQuery is `puzzled bench-query`. It measures, in one run: (1) the list queries of the API on
// a history of --jobs stored jobs and results seeded with COPY (p50/p95 of
// each, first page and the page after), the reports (/v1/stats over the
// history, and a --report-batch job batch's report), and (2) submit-to-done of a trivial
// interactive level through POST /v1/jobs and a long-poll: on an idle
// stack without reserved interactive slots (asynq's 50 ms poll, the
// baseline), idle with them, and with them while a batch of slow columns
// levels keeps every bulk slot busy.
func RunQuery(ctx context.Context, args []string, srv Servers) error {
	cfg := Config{CheckpointEvery: 5 * time.Second, StaleAfter: time.Minute, InteractivePoll: queue.InteractivePoll,
		Limits: api.Limits{SubmitRate: 1e6}} // one client submits as fast as it can
	fs := flag.NewFlagSet("bench-query", flag.ContinueOnError)
	databaseFlags(fs, &cfg, "an empty database the bench may fill")
	fs.StringVar(&cfg.RedisAddr, "redis-addr", "", "Redis address (default: embedded)")
	fs.IntVar(&cfg.RedisDB, "redis-db", 0, "Redis database index")
	fs.IntVar(&cfg.Concurrency, "concurrency", 2, "bulk worker concurrency")
	slots := fs.Int("interactive-slots", 1, "reserved interactive slots")
	fs.DurationVar(&cfg.InteractivePoll, "interactive-poll", queue.InteractivePoll, "idle poll of the reserved interactive slots")
	srv.BulkFlags(fs, &cfg.BulkPriority, &cfg.BulkYield)
	busyBaseline := fs.Bool("busy-baseline", true, "also measure the busy phase with the bulk searches inside the worker process (--bulk-priority off), as a baseline of the same run")
	jobs := fs.Int("jobs", 1_000_000, "seeded jobs")
	queries := fs.Int("queries", 100, "requests per list query")
	reports := fs.Int("reports", 20, "requests per report (stats over the seeded span and a day, a batch's report)")
	reportJobs := fs.Int("report-batch", 100_000, "jobs of the batch whose report is measured (0: none)")
	latency := fs.Int("latency", 100, "interactive jobs per latency phase (0: lists only)")
	bulk := fs.Int("bulk", 3000, "slow columns levels of the busy phase (0: no busy phase)")
	seeded := fs.Bool("seeded", false, "the database already holds the history of an earlier run with the same --jobs: do not seed it again")
	bulkMS := fs.Int64("bulk-ms", 20_000, "time budget of each bulk level")
	fs.StringVar(&cfg.LogLevel, "log-level", "warn", "log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger, st, qc, stop, err := openBench(ctx, srv, &cfg)
	if err != nil {
		return err
	}
	defer stop()

	if *seeded {
		fmt.Printf("using the history already seeded in the database (--seeded)\n")
	} else {
		start := time.Now()
		if err := storetest.Seed(ctx, cmp.Or(cfg.DirectURL, cfg.DatabaseURL), storetest.SeedParams{Jobs: *jobs, Levels: *jobs / 5, Batches: *jobs / 100, Kinds: kinds.Registry().Names(),
			Checkpoint: true}); err != nil {
			return err
		}
		fmt.Printf("seeded %d jobs and results, %d levels, %d batches with COPY in %.1f s\n",
			*jobs, *jobs/5, *jobs/100, time.Since(start).Seconds())
	}

	c, stopAPI, err := serveAPI(ctx, srv, cfg, st, qc, logger, time.Minute)
	if err != nil {
		return err
	}
	defer stopAPI()

	if err := benchLists(ctx, c, st, *queries); err != nil {
		return err
	}
	if err := benchReports(ctx, c, st, *reportJobs, *reports); err != nil {
		return err
	}

	if *latency == 0 {
		return nil
	}
	salt := time.Now().UnixNano() % 1_000_000_007
	wst, err := store.Open(ctx, cfg.DatabaseURL, srv.WorkerStoreOpts(cfg))
	if err != nil {
		return err
	}
	defer wst.Close()
	cfg.InteractiveSlots = 0
	base, err := withWorker(ctx, srv, cfg, wst, qc, logger, func() ([]time.Duration, error) { return benchLatency(ctx, c, *latency, 0, salt) })
	if err != nil {
		return err
	}
	printLatency("idle, no reserved slot (asynq 50 ms poll)", base, nil, "")
	cfg.InteractiveSlots = *slots
	idle, err := withWorker(ctx, srv, cfg, wst, qc, logger, func() ([]time.Duration, error) { return benchLatency(ctx, c, *latency, 1, salt) })
	if err != nil {
		return err
	}
	printLatency(fmt.Sprintf("idle, %d reserved slot(s)", *slots), idle, base, "the poll's")
	if *bulk == 0 {
		// No bulk batch to keep the slots busy: a batch of no levels is
		// not a batch (the API answers 400 "levels: empty body").
		fmt.Println("no busy phase (--bulk 0)")
		return nil
	}
	busyPhase := func(priority string, phase int) error {
		c2 := cfg
		c2.BulkPriority = priority
		busy, err := withWorker(ctx, srv, c2, wst, qc, logger, func() ([]time.Duration, error) {
			return benchBusy(ctx, c, c2.Concurrency, *bulk, *bulkMS, uint64(salt), uint64(phase), func() ([]time.Duration, error) {
				return benchLatency(ctx, c, *latency, phase, salt)
			})
		})
		if err != nil {
			return err
		}
		where := "bulk searches at priority " + priority
		if priority == "off" {
			where = "bulk searches in the worker"
		}
		printLatency(fmt.Sprintf("every bulk slot busy, %s, %d reserved slot(s)", where, *slots), busy, idle, "idle's")
		return nil
	}
	if *busyBaseline && cfg.BulkPriority != "off" {
		if err := busyPhase("off", 2); err != nil {
			return err
		}
	}
	if err := busyPhase(cfg.BulkPriority, 3); err != nil {
		return err
	}
	return nil
}

// withWorker runs a worker (bulk slots plus cfg.InteractiveSlots reserved
// ones) while fn runs.
func withWorker[T any](ctx context.Context, srv Servers, cfg Config, st *store.Store, qc *queue.Client, logger *slog.Logger, fn func() (T, error)) (T, error) {
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Work(wctx, cfg, st, qc, logger) }()
	time.Sleep(500 * time.Millisecond) // the asynq servers start
	out, err := fn()
	stop()
	if werr := <-done; err == nil {
		err = werr
	}
	return out, err
}

// listCase is one list query with random parameters.
type listCase struct {
	name  string
	path  string
	query func(r *rand.Rand) url.Values
}

func benchLists(ctx context.Context, c *client.Client, st *store.Store, n int) error {
	var hashes []string
	if err := st.ListLevels(ctx, store.LevelFilter{Limit: 1000}, func(l store.LevelListItem) error {
		hashes = append(hashes, l.Hash)
		return nil
	}); err != nil {
		return err
	}
	now := time.Now()
	day := func(r *rand.Rand) (string, string) {
		since := now.Add(-time.Duration(r.IntN(29*24)) * time.Hour)
		return since.UTC().Format(time.RFC3339), since.Add(24 * time.Hour).UTC().Format(time.RFC3339)
	}
	until := func(r *rand.Rand) string { // a random depth into the history
		return now.Add(-time.Duration(r.IntN(29*24)) * time.Hour).UTC().Format(time.RFC3339)
	}
	names := kinds.Registry().Names()
	kind := func(r *rand.Rand) string { return names[r.IntN(len(names))] }
	project := func(r *rand.Rand) string { return fmt.Sprintf("project:p%d", r.IntN(10)) }
	v := func(kv ...string) url.Values {
		q := url.Values{"limit": {"100"}}
		for i := 0; i < len(kv); i += 2 {
			q.Add(kv[i], kv[i+1])
		}
		return q
	}
	cases := []listCase{
		{"jobs", "/v1/jobs", func(r *rand.Rand) url.Values { return v() }},
		{"jobs?until (deep)", "/v1/jobs", func(r *rand.Rand) url.Values { return v("until", until(r)) }},
		{"jobs?batch", "/v1/jobs", func(r *rand.Rand) url.Values { return v("batch", fmt.Sprint(1+r.IntN(1000))) }},
		{"jobs?kind", "/v1/jobs", func(r *rand.Rand) url.Values { return v("kind", kind(r), "until", until(r)) }},
		{"jobs?state=failed", "/v1/jobs", func(r *rand.Rand) url.Values { return v("state", "failed", "until", until(r)) }},
		{"jobs?verdict", "/v1/jobs", func(r *rand.Rand) url.Values {
			return v("verdict", []string{"solved", "unsolvable", "unknown"}[r.IntN(3)], "until", until(r))
		}},
		{"jobs?level", "/v1/jobs", func(r *rand.Rand) url.Values { return v("level", hashes[r.IntN(len(hashes))]) }},
		{"jobs?label", "/v1/jobs", func(r *rand.Rand) url.Values { return v("label", project(r)) }},
		{"jobs?label (rare)", "/v1/jobs", func(r *rand.Rand) url.Values { return v("label", fmt.Sprintf("designer:d%d", r.IntN(50))) }},
		{"jobs?since&until (a day)", "/v1/jobs", func(r *rand.Rand) url.Values {
			s, u := day(r)
			return v("since", s, "until", u)
		}},
		{"jobs?kind&verdict&label", "/v1/jobs", func(r *rand.Rand) url.Values {
			return v("kind", kind(r), "verdict", "unsolvable", "label", project(r))
		}},
		{"batches", "/v1/batches", func(r *rand.Rand) url.Values { return v("until", until(r)) }},
		{"batches?label", "/v1/batches", func(r *rand.Rand) url.Values { return v("label", project(r)) }},
		{"levels", "/v1/levels", func(r *rand.Rand) url.Values { return v() }},
		{"levels?kind", "/v1/levels", func(r *rand.Rand) url.Values { return v("kind", kind(r)) }},
		{"levels?verdict", "/v1/levels", func(r *rand.Rand) url.Values {
			return v("verdict", []string{"solved", "unsolvable"}[r.IntN(2)])
		}},
		{"levels?label", "/v1/levels", func(r *rand.Rand) url.Values { return v("label", project(r)) }},
		{"levels/{hash}/results", "", nil},
	}
	r := rand.New(rand.NewPCG(1, 2))
	fmt.Printf("\nlist queries, limit 100, %d requests each (first page, then the page after it):\n", n)
	fmt.Printf("  %-28s %9s %9s %9s %9s\n", "query", "p50 ms", "p95 ms", "next p50", "next p95")
	worst := time.Duration(0)
	for _, lc := range cases {
		var first, next []time.Duration
		for range n {
			path, q := lc.path, url.Values{"limit": {"100"}}
			if lc.query != nil {
				q = lc.query(r)
			} else {
				path = "/v1/levels/" + hashes[r.IntN(len(hashes))] + "/results"
			}
			t0 := time.Now()
			_, cursor, err := c.ListPage(ctx, path, q)
			if err != nil {
				return fmt.Errorf("%s: %w", lc.name, err)
			}
			first = append(first, time.Since(t0))
			if cursor != "" {
				q.Set("cursor", cursor)
				t0 = time.Now()
				if _, _, err := c.ListPage(ctx, path, q); err != nil {
					return fmt.Errorf("%s: %w", lc.name, err)
				}
				next = append(next, time.Since(t0))
			}
		}
		p95 := pct(first, 95)
		worst = max(worst, p95, pct(next, 95))
		fmt.Printf("  %-28s %9.1f %9.1f %9.1f %9.1f\n", lc.name, ms(pct(first, 50)), ms(p95), ms(pct(next, 50)), ms(pct(next, 95)))
	}
	fmt.Printf("  worst p95: %.1f ms\n", ms(worst))
	return nil
}

// benchLatency submits n trivial interactive levels one after another and
// returns, for each, the time from POST /v1/jobs to the long-poll's answer
// with the job done.
func benchLatency(ctx context.Context, c *client.Client, n int, phase int, salt int64) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	var post, queued, solve, notify []time.Duration
	defer func() {
		for _, p := range []int{50, 95} {
			fmt.Printf("  (p%d: POST %.1f ms; created→started %.1f ms; started→finished %.1f ms; finished→answered %.1f ms)\n",
				p, ms(pct(post, p)), ms(pct(queued, p)), ms(pct(solve, p)), ms(pct(notify, p)))
		}
	}()
	for i := range n {
		// A new level each time, in every run (salt): a cached result
		// would complete at once.
		lvl := json.RawMessage(fmt.Sprintf(`{"kind":%q,"values":[%d,%d,%d,1,2]}`, twoends.Name, salt, phase, 1000+i))
		t0 := time.Now()
		j, err := c.CreateJob(ctx, lvl, jobtype.Options{})
		if err != nil {
			return nil, err
		}
		post = append(post, time.Since(t0))
		if !j.State.Final() {
			if j, err = c.WaitJob(ctx, j.ID, 30*time.Second); err != nil {
				return nil, err
			}
		}
		took := time.Since(t0)
		if j.State != jobtype.Done || j.Cached {
			return nil, fmt.Errorf("job %d: %s (cached %v)", j.ID, j.State, j.Cached)
		}
		if j.StartedAt != nil && j.FinishedAt != nil {
			queued = append(queued, j.StartedAt.Sub(j.CreatedAt))
			solve = append(solve, j.FinishedAt.Sub(*j.StartedAt))
			notify = append(notify, time.Since(*j.FinishedAt))
		}
		out = append(out, took)
	}
	return out, nil
}

// benchBusy submits a bulk batch of slow columns levels, waits until every
// bulk slot runs one, and measures while they keep running.
func benchBusy(ctx context.Context, c *client.Client, slots, n int, budgetMS int64, salt, phase uint64, measure func() ([]time.Duration, error)) ([]time.Duration, error) {
	r := rand.New(rand.NewPCG(salt, phase)) // other levels per run and phase: no bulk result of an earlier one is reused
	levels, err := SlowLevels(r, n)
	if err != nil {
		return nil, err
	}
	id, err := c.CreateBatch(ctx, levels, jobtype.Options{Priority: jobtype.Bulk, Budget: solver.Budget{MaxMS: budgetMS}})
	if err != nil {
		return nil, err
	}
	defer func() { _, _ = c.CancelBatch(context.WithoutCancel(ctx), id) }()
	deadline := time.Now().Add(time.Minute)
	for {
		b, err := c.GetBatch(ctx, id)
		if err != nil {
			return nil, err
		}
		if b.States[string(jobtype.Running)] >= slots {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("bulk batch: %d running after a minute, want %d", b.States[string(jobtype.Running)], slots)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, err := measure()
	if err != nil {
		return nil, err
	}
	b, err := c.GetBatch(ctx, id)
	if err != nil {
		return nil, err
	}
	fmt.Printf("\n(bulk batch %d: %d levels, %d running, %d done when the measurement ended)\n",
		id, n, b.States[string(jobtype.Running)], b.States[string(jobtype.Done)])
	return out, nil
}

func printLatency(name string, d, baseline []time.Duration, baseName string) {
	line := fmt.Sprintf("submit-to-done, %-44s p50 %6.1f ms  p95 %6.1f ms  max %6.1f ms (%d jobs)",
		name+":", ms(pct(d, 50)), ms(pct(d, 95)), ms(pct(d, 100)), len(d))
	if baseline != nil {
		line += fmt.Sprintf("  p50 = %.2f× %s", float64(pct(d, 50))/float64(pct(baseline, 50)), baseName)
	}
	fmt.Println(strings.TrimSpace(line))
}

// pct is the p-th percentile (nearest rank) of d.
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// benchReports measures the reports read from rollups: /v1/stats over the
// seeded history's whole span (30 days) and over a day, and the report of
// a batch of reportJobs jobs stored and finished here (as workers would:
// bundles claimed, FinishJobs in statements of a bundle's size), n
// requests each.
func benchReports(ctx context.Context, c *client.Client, st *store.Store, reportJobs, n int) error {
	fmt.Printf("\nreports, %d requests each:\n", n)
	fmt.Printf("  %-40s %9s %9s\n", "report", "p50 ms", "p95 ms")
	now := time.Now()
	for _, w := range []struct {
		name        string
		since, till time.Time
	}{
		{"stats, 30 days", now.Add(-31 * 24 * time.Hour), now.Add(time.Minute)},
		{"stats, a day (edges off the hour)", now.Add(-15*24*time.Hour - 17*time.Minute), now.Add(-14*24*time.Hour + 23*time.Minute)},
	} {
		d, err := timeRequests(n, func() error { _, err := c.Stats(ctx, w.since, w.till); return err })
		if err != nil {
			return err
		}
		fmt.Printf("  %-40s %9.1f %9.1f\n", w.name, ms(pct(d, 50)), ms(pct(d, 95)))
	}
	if reportJobs <= 0 {
		return nil
	}
	start := time.Now()
	id, err := finishedBatch(ctx, st, reportJobs)
	if err != nil {
		return err
	}
	fmt.Printf("  (a batch of %d jobs stored and finished in %.1f s)\n", reportJobs, time.Since(start).Seconds())
	d, err := timeRequests(n, func() error { _, err := c.GetReport(ctx, id); return err })
	if err != nil {
		return err
	}
	fmt.Printf("  %-40s %9.1f %9.1f\n", fmt.Sprintf("report of a batch of %d jobs", reportJobs), ms(pct(d, 50)), ms(pct(d, 95)))
	return nil
}

// timeRequests times n calls of fn.
func timeRequests(n int, fn func() error) ([]time.Duration, error) {
	d := make([]time.Duration, 0, n)
	for range n {
		t := time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		d = append(d, time.Since(t))
	}
	return d, nil
}

// finishedBatch stores a batch of n twoends levels and finishes its jobs
// with results of varied verdicts, times and nodes, 64 at a time.
func finishedBatch(ctx context.Context, st *store.Store, n int) (int64, error) {
	levels := make([]store.Level, n)
	salt := time.Now().UnixNano()
	for i := range levels {
		levels[i] = storetest.Level(twoends.Name, fmt.Appendf(nil, `{"kind":"twoends","values":[%d,%d,7]}`, salt, i))
	}
	id, err := st.CreateBatch(ctx, store.BatchParams{Levels: levels, Priority: jobtype.Bulk, MaxAttempts: 3,
		Labels: benchLabels, Versions: map[string]string{twoends.Name: "bench"}})
	if err != nil {
		return 0, err
	}
	var ids []int64
	if err := st.BatchResults(ctx, id, func(r store.BatchResult) error {
		ids = append(ids, r.JobID)
		return nil
	}); err != nil {
		return 0, err
	}
	runs, err := storetest.ClaimBatch(ctx, st, id, n)
	if err != nil {
		return 0, err
	}
	r := rand.New(rand.NewPCG(uint64(salt), 5))
	for from := 0; from < len(ids); from += store.BundleSize {
		var fs []store.Finish
		for _, id := range ids[from:min(from+store.BundleSize, len(ids))] {
			res := solver.Result{Verdict: []solver.Verdict{solver.Solved, solver.Unsolvable, solver.Unknown}[r.IntN(3)],
				Stats: solver.Stats{ElapsedMS: int64(r.ExpFloat64() * 50), Nodes: int64(r.IntN(100_000))}}
			if res.Verdict == solver.Solved {
				res.Value, res.Optimal, res.Plan = solver.Int64(1), true, json.RawMessage(`"L"`)
			}
			fs = append(fs, store.Finish{JobID: id, Run: runs[id], SolverVersion: "bench", Result: res})
		}
		if _, _, err := st.FinishJobs(ctx, fs); err != nil {
			return 0, err
		}
	}
	// The rollups folded, as the workers' dispatchers do every few seconds.
	if _, err := st.CompactCounts(ctx, 1000); err != nil {
		return 0, err
	}
	return id, nil
}

// SlowLevels makes n new columns levels whose search runs long (most use
// all of a budget of seconds, none is trivial): the slow bulk work of the
// bench commands and of the fair-share test.
func SlowLevels(r *rand.Rand, n int) ([]json.RawMessage, error) {
	levels := make([]json.RawMessage, n)
	for i := range levels {
		lvl, err := columns.Generate(r, columns.GenConfig{Width: 6, Height: 12, Rule: columns.RuleLines, Colors: 5,
			Fill: 0.4, Pieces: 60, Goal: columns.GoalScore, Score: 400})
		if err != nil {
			return nil, err
		}
		levels[i] = lvl.Canonical()
	}
	return levels, nil
}
