package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/internal/envtest"
	"github.com/puzzled/puzzled/internal/solveproc"
	"github.com/puzzled/puzzled/internal/waittest"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/store/storetest"
	"github.com/puzzled/puzzled/worker"
)

func TestMain(m *testing.M) {
	// The solve processes of TestSearchesMoveToSolveProcesses are this
	// test binary, serving the sleep kind.
	if os.Getenv(solveChildEnv) == "1" {
		reg := solver.NewRegistry(newSleepKind(true))
		if err := solveproc.Serve(context.Background(), os.Stdin, os.Stdout, reg, slog.New(slog.DiscardHandler)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(envtest.Run(m))
}

const solveChildEnv = "WORKER_TEST_SOLVE_CHILD"

// sleepKind is a fake solver, so that the tests choose how long each job
// of a bundle takes: a level {"kind":"sleep","ms":N,"n":I} sleeps N ms
// (honouring ctx) and is solved with value N. A level with "gate" waits,
// after its sleep, until the kind's gate is open (openGate), so that a
// test makes a job slow by what it waits for, not by a duration that a
// busy machine may stretch past another; in a solve process the gate is
// open from the start. A level with "panic" panics the first time it is
// solved.
type sleepKind struct {
	panicked atomic.Bool
	gate     chan struct{}
	openOnce sync.Once
}

func newSleepKind(open bool) *sleepKind {
	k := &sleepKind{gate: make(chan struct{})}
	if open {
		k.openGate()
	}
	return k
}

// openGate lets every gated level finish.
func (k *sleepKind) openGate() { k.openOnce.Do(func() { close(k.gate) }) }

type sleepLevel struct {
	MS    int64 `json:"ms"`
	N     int   `json:"n"`
	Gate  bool  `json:"gate,omitempty"`
	Panic bool  `json:"panic,omitempty"`
	body  []byte
}

func (l *sleepLevel) Kind() string      { return "sleep" }
func (l *sleepLevel) Canonical() []byte { return l.body }

func (k *sleepKind) Name() string    { return "sleep" }
func (k *sleepKind) Version() string { return "1" }
func (k *sleepKind) Parse(data []byte) (solver.Level, error) {
	l := &sleepLevel{body: data}
	return l, json.Unmarshal(data, l)
}

func (k *sleepKind) Solve(ctx context.Context, lvl solver.Level, opts solver.Options) (solver.Result, error) {
	l := lvl.(*sleepLevel)
	if opts.Resume != nil {
		return solver.Result{}, errors.New("sleep: this version writes no checkpoints")
	}
	if l.Panic && k.panicked.CompareAndSwap(false, true) {
		panic("sleep: asked to panic")
	}
	select {
	case <-time.After(time.Duration(l.MS) * time.Millisecond):
	case <-ctx.Done():
		return solver.Result{Verdict: solver.Unknown}, fmt.Errorf("sleep: %w", ctx.Err())
	}
	if l.Gate {
		select {
		case <-k.gate:
		case <-ctx.Done():
			return solver.Result{Verdict: solver.Unknown}, fmt.Errorf("sleep: %w", ctx.Err())
		}
	}
	return solver.Result{Verdict: solver.Solved, Value: solver.Int64(l.MS), Optimal: true, Stats: solver.Stats{ElapsedMS: l.MS},
		Details: map[string]any{"pid": os.Getpid()}}, nil // which process solved it
}

func (k *sleepKind) Verify(lvl solver.Level, res solver.Result) error {
	if l := lvl.(*sleepLevel); res.Value == nil || *res.Value != l.MS {
		return fmt.Errorf("sleep: value %v, want %d", res.Value, l.MS)
	}
	return nil
}

// env is a migrated database and a Redis DB of the test's own.
type env struct {
	st    *store.Store
	url   string
	redis asynq.RedisConnOpt
	qc    *queue.Client
	kind  *sleepKind
	// pool, if set, runs the bulk searches of the workers (startWorker).
	pool *solveproc.Pool
	// logs has what the test's workers and dispatchers logged, shown
	// when the test fails.
	logs    *syncBuffer
	started int            // workers started (startWorker)
	last    *worker.Worker // the last of them
}

// syncBuffer collects log lines from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newEnv(t *testing.T) *env {
	t.Helper()
	url := envtest.PostgresURL(t)
	if err := store.Migrate(t.Context(), url, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), url, store.OpenOpts{AsyncCommit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	addr, db := envtest.RedisAddr(t)
	opt, err := queue.RedisOpt(addr, db)
	if err != nil {
		t.Fatal(err)
	}
	qc := queue.NewClient(opt)
	t.Cleanup(func() { qc.Close() })
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("what the workers logged:\n%s", logs)
		}
	})
	return &env{st: st, url: url, redis: opt, qc: qc, kind: newSleepKind(false), logs: logs}
}

// proxiedStore is a store of the env's database reached through a proxy
// that the test may cut (envtest.Proxy), for a worker cut off from
// PostgreSQL while the rest of the test reaches it.
func (e *env) proxiedStore(t *testing.T) (*store.Store, *envtest.Proxy) {
	t.Helper()
	u, err := url.Parse(e.url)
	if err != nil {
		t.Fatal(err)
	}
	proxy := envtest.NewProxy(t, u.Host)
	st, err := store.Open(t.Context(), proxy.ProxyURL(t, e.url), store.OpenOpts{AsyncCommit: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st, proxy
}

// startWorker runs a worker process's loop (asynq server, handler,
// dispatcher) until the returned stop is called; stop shuts it down
// gracefully and waits. opts, if given, adjust the worker's Config.
func (e *env) startWorker(t *testing.T, concurrency int, opts ...func(*worker.Config)) (stop func()) {
	t.Helper()
	return e.startWorkerWith(t, concurrency, serving{}, opts...)
}

// serving is what a worker of startWorkerWith reaches its servers through
// (the env's own by default), and whether its dispatcher, as `puzzled
// work`'s does, takes over the jobs of dead workers and lost tasks.
type serving struct {
	store    *store.Store
	redis    asynq.RedisConnOpt
	queue    *queue.Client
	takeOver bool
}

// startWorkerWith is startWorker on the servers srv names.
func (e *env) startWorkerWith(t *testing.T, concurrency int, srv serving, opts ...func(*worker.Config)) (stop func()) {
	t.Helper()
	if srv.store == nil {
		srv.store = e.st
	}
	if srv.redis == nil {
		srv.redis, srv.queue = e.redis, e.qc
	}
	e.started++
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})).With("worker", e.started)
	cfg := worker.Config{Store: srv.store, Registry: solver.NewRegistry(e.kind), CancelPoll: 50 * time.Millisecond,
		Processes: e.pool, Logger: log}
	for _, o := range opts {
		o(&cfg)
	}
	w := worker.New(cfg)
	e.last = w
	dc := queue.DispatcherConfig{Store: srv.store, Client: srv.queue, Poll: 20 * time.Millisecond, Logger: log}
	if srv.takeOver {
		dc.Owner = w.Owner()
	}
	d := queue.NewDispatcher(dc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- worker.Serve(ctx, w, worker.ServeConfig{Redis: srv.redis, Concurrency: concurrency, Dispatcher: d})
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// batch submits one sleep level per entry of ms (panicAt: the seq of a
// level that panics once, or -1; gated: the seqs of levels that wait for
// the kind's gate).
func (e *env) batch(t *testing.T, ms []int64, panicAt int, gated ...int) int64 {
	t.Helper()
	levels := make([]store.Level, len(ms))
	for i, d := range ms {
		body, _ := json.Marshal(sleepLevel{MS: d, N: i, Panic: i == panicAt, Gate: slices.Contains(gated, i)})
		body = append([]byte(`{"kind":"sleep",`), body[1:]...)
		levels[i] = storetest.Level("sleep", body)
	}
	id, err := e.st.CreateBatch(t.Context(), store.BatchParams{Levels: levels, Priority: jobtype.Bulk, MaxAttempts: 3,
		Versions: map[string]string{"sleep": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// jobRow is what the tests check of each job of a batch.
type jobRow struct {
	Seq      int32
	State    jobtype.State
	Attempts int32
	Solo     bool
	Verdict  *string
	Started  bool // started_at set, and not after finished_at
	Results  int
}

// queryRows runs a query on a connection of its own to the env's database
// (tests poll with it, while the workers use the store's pool) and
// collects its rows with scan.
func queryRows[T any](t *testing.T, e *env, scan pgx.RowToFunc[T], sql string, args ...any) []T {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (e *env) jobs(t *testing.T, batchID int64) []jobRow {
	t.Helper()
	return queryRows(t, e, pgx.RowToStructByPos[jobRow], `
		SELECT seq, state::text, attempts, solo, verdict,
			started_at IS NOT NULL AND (finished_at IS NULL OR started_at <= finished_at),
			(SELECT count(*) FROM results r WHERE r.job_id = j.id)
		FROM jobs j WHERE batch_id = $1 ORDER BY seq`, batchID)
}

// stampedWithoutTask lists the live jobs of the batch that travel alone and
// are stamped as handed to asynq, but whose task is in none of its queues.
func (e *env) stampedWithoutTask(t *testing.T, batchID int64) []int64 {
	t.Helper()
	ids := queryRows(t, e, pgx.RowTo[int64], `
		SELECT id FROM jobs WHERE batch_id = $1 AND solo AND enqueued_at > '-infinity' -- -infinity: to be sent first
			AND state IN ('queued', 'running') ORDER BY id`, batchID)
	tasks := map[string]bool{}
	in := e.qc.Inspector()
	for q := range queue.Queues {
		for _, list := range []func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){
			in.ListPendingTasks, in.ListActiveTasks, in.ListScheduledTasks, in.ListRetryTasks,
		} {
			infos, err := list(q)
			if err != nil && !errors.Is(err, asynq.ErrQueueNotFound) {
				t.Fatal(err)
			}
			for _, info := range infos {
				// A resumed job's task id carries its recoveries (job:7:r1).
				id, _, _ := strings.Cut(strings.TrimPrefix(info.ID, "job:"), ":")
				tasks[id] = true
			}
		}
	}
	return slices.DeleteFunc(ids, func(id int64) bool { return tasks[strconv.FormatInt(id, 10)] })
}

// waitBatch waits until every job of the batch is final.
func (e *env) waitBatch(t *testing.T, batchID int64, timeout time.Duration) []jobRow {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Logf("jobs of batch %d: %+v", batchID, e.jobs(t, batchID))
		}
	}()
	waittest.WaitFor(t, timeout, fmt.Sprintf("batch %d to be done", batchID), func() bool {
		b, err := e.st.GetBatch(t.Context(), batchID)
		if err != nil {
			t.Fatal(err)
		}
		return b.Done == 1
	})
	return e.jobs(t, batchID)
}

// neverSlow keeps the bundle's slow rule out of a test about something
// else: on a loaded machine even jobs of no work can take SlowAfter in all.
func neverSlow(c *worker.Config) { c.SlowAfter = time.Hour }

// slowAfter sets the slow rule's threshold for a test where it must fire:
// long enough that a few jobs of no work stay under it on a loaded
// machine; the jobs meant to pass it wait for the kind's gate.
func slowAfter(d time.Duration) func(*worker.Config) {
	return func(c *worker.Config) { c.SlowAfter = d }
}

func checkAllDoneOnce(t *testing.T, rows []jobRow, attempts int32) {
	t.Helper()
	for _, r := range rows {
		if r.State != jobtype.Done || r.Results != 1 || r.Verdict == nil || *r.Verdict != "solved" ||
			!r.Started || r.Attempts != attempts {
			t.Errorf("job seq %d: %+v; want done, solved, one result, started, %d attempt(s)", r.Seq, r, attempts)
		}
	}
}

func TestBundleCarriesManyFastJobsInOneTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n = 2*queue.BundleSize + 5
	id := e.batch(t, make([]int64, n), -1)
	e.startWorker(t, 2, neverSlow)
	rows := e.waitBatch(t, id, 30*time.Second)
	if len(rows) != n {
		t.Fatalf("%d jobs, want %d", len(rows), n)
	}
	checkAllDoneOnce(t, rows, 1)
	for _, r := range rows {
		if r.Solo {
			t.Errorf("fast job seq %d went solo", r.Seq)
		}
	}
	// The jobs are final in PostgreSQL before asynq marks their task done
	// in Redis (the handler returns after the write): wait for the queue to
	// be empty, then count the tasks it processed.
	var info *asynq.QueueInfo
	waittest.WaitFor(t, 30*time.Second, "the bulk queue to have no task left", func() bool {
		var err error
		if info, err = e.qc.Inspector().GetQueueInfo(queue.Bulk); err != nil {
			t.Fatal(err)
		}
		return info.Size == 0
	})
	if want := (n + queue.BundleSize - 1) / queue.BundleSize; info.ProcessedTotal != want {
		t.Errorf("asynq processed %d tasks for %d jobs, want %d bundles", info.ProcessedTotal, n, want)
	}
}

func TestSlowJobSendsTheRestOfItsBundleSolo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ms := make([]int64, 12)
	const slow = 3
	id := e.batch(t, ms, -1, slow)
	e.startWorker(t, 2, slowAfter(2*time.Second))

	// While the slow job searches (it waits for the gate) it shows
	// running, the results of the jobs before it are stored (not kept
	// until its search ends), and the jobs after it are done by the other
	// slot as solo tasks.
	waittest.WaitFor(t, time.Minute, "the rest of the bundle to be done while the slow job runs", func() bool {
		rows := e.jobs(t, id)
		restDone := true
		for _, r := range slices.Concat(rows[:slow], rows[slow+1:]) {
			restDone = restDone && r.State == jobtype.Done
		}
		if restDone && (rows[slow].State != jobtype.Running || rows[slow].Attempts != 1) {
			t.Fatalf("rest of the bundle done while the slow job is %+v; want running, attempt 1", rows[slow])
		}
		return restDone
	})
	e.kind.openGate()
	rows := e.waitBatch(t, id, 60*time.Second)
	checkAllDoneOnce(t, rows, 1)
	for _, r := range rows {
		if want := r.Seq > slow; r.Solo != want {
			t.Errorf("job seq %d: solo = %v, want %v", r.Seq, r.Solo, want)
		}
	}
}

// TestSearchesMoveToSolveProcesses: with a pool of solve processes, the
// jobs of a bundle are solved in the worker process while they finish
// within InProcessSlice; the first that does not starts over in a solve
// process, and so do the bundle's later jobs, however quick (the bundle
// stays one, none goes solo); an interactive job is solved in the worker
// process.
//
// Which job passes the slice is decided by what it waits for, not by how
// long it sleeps: the long job waits for the kind's gate, which stays
// shut in the worker process and is open in the solve processes: it uses
// no CPU, so it passes the slice by the wall clock (20 slices, 5 s). The
// jobs of no work stay far within it on a loaded machine, and the slow
// rule is kept out (neverSlow), so no job goes solo by chance.
func TestSearchesMoveToSolveProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.pool = solveproc.NewPool(solveproc.PoolConfig{Command: func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), solveChildEnv+"=1")
		cmd.Stderr = os.Stderr
		return cmd
	}})
	t.Cleanup(func() { e.pool.Close(10 * time.Second) })
	ms := make([]int64, 8)
	const long = 3
	id := e.batch(t, ms, -1, long)
	e.startWorker(t, 2, neverSlow, func(c *worker.Config) { c.InProcessSlice = 250 * time.Millisecond })
	rows := e.waitBatch(t, id, 60*time.Second)
	checkAllDoneOnce(t, rows, 1)

	self := os.Getpid()
	pids := e.solvedBy(t, `j.batch_id = $1 ORDER BY j.seq`, id)
	for seq, pid := range pids {
		if inWorker := seq < long; (pid == self) != inWorker {
			t.Errorf("job seq %d solved by pid %d (the worker is %d); want in the worker: %v", seq, pid, self, inWorker)
		}
		if rows[seq].Solo {
			t.Errorf("job seq %d went solo", seq)
		}
	}

	body := []byte(`{"kind":"sleep","ms":1,"n":99}`)
	interactive, err := e.st.CreateJob(t.Context(), store.JobParams{Level: storetest.Level("sleep", body),
		Priority: jobtype.Interactive, MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.qc.Enqueue(t.Context(), interactive.ID, jobtype.Interactive, 0); err != nil {
		t.Fatal(err)
	}
	waittest.WaitFor(t, time.Minute, "the interactive job to be solved", func() bool {
		return len(e.solvedBy(t, `j.id = $1`, interactive.ID)) == 1
	})
	if pid := e.solvedBy(t, `j.id = $1`, interactive.ID)[0]; pid != self {
		t.Errorf("interactive job solved by pid %d, want the worker's %d", pid, self)
	}
}

// solvedBy returns the pid that each job's result names, for the jobs
// that the WHERE clause where selects and that have a result.
func (e *env) solvedBy(t *testing.T, where string, args ...any) []int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), `SELECT (r.details->>'pid')::int FROM jobs j JOIN results r ON r.job_id = j.id WHERE `+where, args...)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

func TestBundleOfMiddlingJobsSpreadsOverTheSlots(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ms := make([]int64, 16)
	for i := range ms {
		ms[i] = 100
	}
	id := e.batch(t, ms, -1)
	e.startWorker(t, 4)
	rows := e.waitBatch(t, id, 30*time.Second)
	checkAllDoneOnce(t, rows, 1)
	solo := 0
	for _, r := range rows {
		if r.Solo {
			solo++
		}
	}
	// The bundle runs until it has taken queue.SlowAfter (200 ms: two or
	// three jobs), then sends the rest solo.
	if rows[0].Solo || solo < len(rows)/2 {
		t.Errorf("%d of %d jobs went solo (first: %v); want the first in the bundle and most solo", solo, len(rows), rows[0].Solo)
	}
}

func TestRetriedBundleRunsItsJobsSolo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n, panicAt = 20, 7
	id := e.batch(t, make([]int64, n), panicAt)
	e.startWorker(t, 2, neverSlow)
	rows := e.waitBatch(t, id, 30*time.Second) // asynq retries after 1 s
	if !e.kind.panicked.Load() {
		t.Fatal("the level never panicked")
	}
	// The panic lost the bundle's unstored results and counted no
	// attempt; the retry sent every job solo, where each took one attempt.
	checkAllDoneOnce(t, rows, 1)
	for _, r := range rows {
		if !r.Solo {
			t.Errorf("job seq %d of the retried bundle is not solo", r.Seq)
		}
	}
}

func TestShutdownHandsTheBundleBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Job 1 waits for the gate, so it is still searching when the worker
	// stops, however long the test takes to get there.
	ms := []int64{0, 0, 0, 0, 0}
	id := e.batch(t, ms, -1, 1)
	stop := e.startWorker(t, 1, slowAfter(2*time.Second))
	waittest.WaitFor(t, time.Minute, "the slow job to run", func() bool {
		return e.jobs(t, id)[1].State == jobtype.Running
	})
	stop()
	// Whatever the dispatcher was doing when the worker stopped, no job is
	// left stamped as handed to asynq without a task: it would wait for
	// the stale check, a minute later.
	if ids := e.stampedWithoutTask(t, id); len(ids) > 0 {
		t.Errorf("jobs %v stamped as handed to asynq, with no task", ids)
	}
	rows := e.jobs(t, id)
	if rows[0].State != jobtype.Done {
		t.Errorf("job done before the shutdown not stored: %+v", rows[0])
	}
	if r := rows[1]; r.State != jobtype.Queued || r.Attempts != 0 || !r.Solo {
		t.Errorf("interrupted job %+v; want queued, solo, the attempt not counted", r)
	}
	for _, r := range rows[2:] {
		if r.State != jobtype.Queued || !r.Solo {
			t.Errorf("job not reached %+v; want queued, solo", r)
		}
	}

	e.kind.openGate()
	e.startWorker(t, 2)
	checkAllDoneOnce(t, e.waitBatch(t, id, 60*time.Second), 1)
}

func TestUnusableCheckpointStartsTheSearchOver(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := e.batch(t, []int64{0}, -1)
	jobs, err := e.st.ClaimBundle(t.Context(), id, 0, 1, store.Owner{ID: "a-test", DeadAfter: worker.DeadAfter})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("fetch: %v, %v", jobs, err)
	}
	// An attempt of an older solver version left a checkpoint, then its
	// worker shut down.
	run := store.RunOf("a-test", jobs[0])
	if err := e.st.MarkRunning(t.Context(), run, jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.SaveCheckpoint(t.Context(), run, jobs[0].ID, 1, []byte("old format")); err != nil {
		t.Fatal(err)
	}
	if err := e.st.RequeueJob(t.Context(), run, jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	e.startWorker(t, 1)
	checkAllDoneOnce(t, e.waitBatch(t, id, 30*time.Second), 1)
}
