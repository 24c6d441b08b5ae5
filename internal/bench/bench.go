package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver/twoends"
	"github.com/puzzled/puzzled/store"
)

// Run is `puzzled bench`. It measures, in one run on one machine: (a) raw
// asynq throughput of no-op tasks, (b) end-to-end throughput of small
// twoends jobs from batch submission to all results stored, and (c) how
// long POST /v1/batches takes to accept a large batch. With no
// --database-url it runs on an embedded stack in a temporary folder, so it
// never touches real data.
func Run(ctx context.Context, args []string, srv Servers) error {
	cfg := Config{CheckpointEvery: 5 * time.Second, StaleAfter: time.Minute}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	databaseFlags(fs, &cfg, "a database the bench may fill")
	fs.StringVar(&cfg.RedisAddr, "redis-addr", "", "Redis address whose DB --redis-db the bench may flush (default: embedded)")
	fs.IntVar(&cfg.RedisDB, "redis-db", 0, "Redis database index")
	fs.IntVar(&cfg.Concurrency, "concurrency", 4*runtime.NumCPU(), "worker concurrency, the same for (a) and (b)")
	noop := fs.Int("noop", 20_000, "no-op tasks for (a)")
	jobs := fs.Int("jobs", 20_000, "twoends jobs for (b)")
	big := fs.Int("batch", 100_000, "levels in the batch of (c)")
	backlog := fs.Duration("backlog", 65*time.Second, "how long (d) watches the batch of (c) wait in a paused queue (0: skip (d))")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of (b) to this file")
	memProfile := fs.String("memprofile", "", "write a profile of the memory (b) allocated to this file (go tool pprof -sample_index=alloc_space)")
	srv.BulkFlags(fs, &cfg.BulkPriority, &cfg.BulkYield)
	fs.StringVar(&cfg.LogLevel, "log-level", "warn", "log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger, st, qc, stop, err := openBench(ctx, srv, &cfg)
	if err != nil {
		return err
	}
	defer stop()
	opt, err := queue.RedisOpt(cfg.RedisAddr, cfg.RedisDB)
	if err != nil {
		return err
	}
	fmt.Printf("puzzled bench: %d CPUs, worker concurrency %d\n", runtime.NumCPU(), cfg.Concurrency)

	cpu0 := treeCPU()
	a, err := benchNoop(ctx, opt, cfg.Concurrency, *noop)
	if err != nil {
		return err
	}
	fmt.Printf("(a) asynq no-op tasks:           %8.0f tasks/s (%d tasks)\n", a, *noop)
	printCPU(cpu0, treeCPU(), *noop)

	c, stopAPI, err := serveAPI(ctx, srv, cfg, st, qc, logger, 10*time.Minute)
	if err != nil {
		return err
	}
	defer stopAPI()

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	cpu0 = treeCPU()
	act0, err := st.Activity(ctx, false)
	if err != nil {
		return err
	}
	if *memProfile != "" {
		runtime.MemProfileRate = 4096 // set before (b) allocates, so that its allocations are sampled finely
	}
	b, err := benchEndToEnd(ctx, srv, cfg, st, qc, c, logger, *jobs)
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	if *memProfile != "" {
		if err := writeAllocs(*memProfile); err != nil {
			return err
		}
	}
	cpu1 := treeCPU()
	act1, err := st.Activity(ctx, true)
	if err != nil {
		return err
	}
	fmt.Printf("(b) end-to-end twoends jobs:     %8.0f jobs/s (%d jobs) = %.0f%% of (a)\n", b, *jobs, 100*b/a)
	printCPU(cpu0, cpu1, *jobs)
	printActivity(act0, act1, *jobs)

	cpu0 = treeCPU()
	if act0, err = st.Activity(ctx, false); err != nil {
		return err
	}
	id, took, err := benchSubmit(ctx, c, *big)
	if err != nil {
		return err
	}
	cpu1 = treeCPU()
	if act1, err = st.Activity(ctx, true); err != nil {
		return err
	}
	fmt.Printf("(c) POST /v1/batches, %d levels: %.2f s\n", *big, took.Seconds())
	printCPU(cpu0, cpu1, *big)
	printActivity(act0, act1, *big)

	if *backlog > 0 {
		wal, err := benchBacklog(ctx, srv, cfg, st, qc, logger, *backlog)
		if err != nil {
			return err
		}
		fmt.Printf("(d) the batch of (c) paused in the queue: %.2f MB of WAL a minute (over %s)\n",
			float64(wal)/(1<<20)/backlog.Minutes(), *backlog)
	}
	_, err = c.CancelBatch(ctx, id)
	return err
}

// benchLabels are the labels of the bench's batches: a studio's batches
// carry labels, which must not cost a row per job.
var benchLabels = json.RawMessage(`{"project":"bench","chapter":"1"}`)

// printActivity prints what PostgreSQL wrote per job between two readings.
func printActivity(before, after store.Activity, jobs int) {
	dead := after.Dead() - before.Dead()
	hot := after.HOT - before.HOT
	fmt.Printf("    PostgreSQL per job: %.0f B of WAL, %.2f row versions made dead (%.0f%% of updates HOT)\n",
		float64(after.WAL-before.WAL)/float64(jobs), float64(dead)/float64(jobs),
		100*float64(hot)/float64(max(after.Updated-before.Updated, 1)))
}

// benchBacklog measures what a batch waiting in a paused queue costs
// PostgreSQL: with the bulk queue paused, a worker (and its dispatcher)
// runs for d after the batch's tasks were handed to asynq and the tables
// vacuumed, long enough for the dispatcher's re-check of stale tasks (a
// minute) to come round. It returns the WAL written in that time.
func benchBacklog(ctx context.Context, srv Servers, cfg Config, st *store.Store, qc *queue.Client, logger *slog.Logger, d time.Duration) (int64, error) {
	if err := qc.Inspector().PauseQueue(queue.Bulk); err != nil {
		return 0, fmt.Errorf("bench: pause the bulk queue: %w", err)
	}
	defer func() { _ = qc.Inspector().UnpauseQueue(queue.Bulk) }()
	wst, err := store.Open(ctx, cfg.DatabaseURL, srv.WorkerStoreOpts(cfg))
	if err != nil {
		return 0, err
	}
	defer wst.Close()
	return withWorker(ctx, srv, cfg, wst, qc, logger, func() (int64, error) {
		time.Sleep(5 * time.Second) // the first dispatch of the batch's tasks
		// The vacuum that follows the batch's arrival is not the backlog's.
		if err := st.Vacuum(ctx); err != nil {
			return 0, err
		}
		before, err := st.Activity(ctx, false)
		if err != nil {
			return 0, err
		}
		time.Sleep(d)
		after, err := st.Activity(ctx, false)
		if err != nil {
			return 0, err
		}
		return after.WAL - before.WAL, nil
	})
}

// benchNoop times n no-op tasks through asynq's whole lifecycle, as the
// jobs of (b) go through it: enqueued (8 at a time) while a server with
// the given concurrency processes them.
func benchNoop(ctx context.Context, opt asynq.RedisConnOpt, concurrency, n int) (float64, error) {
	const q = "bench-noop"
	var done atomic.Int64
	finished := make(chan struct{})
	srv := asynq.NewServer(opt, asynq.Config{Concurrency: concurrency, Queues: map[string]int{q: 1},
		TaskCheckInterval: queue.TaskCheckInterval, LogLevel: asynq.ErrorLevel})
	mux := asynq.NewServeMux()
	mux.HandleFunc("noop", func(context.Context, *asynq.Task) error {
		if done.Add(1) == int64(n) {
			close(finished)
		}
		return nil
	})
	if err := srv.Start(mux); err != nil {
		return 0, err
	}
	defer srv.Shutdown()
	time.Sleep(500 * time.Millisecond) // let the server register, as in (b)
	cl := asynq.NewClient(opt)
	defer cl.Close()
	start := time.Now()
	if err := enqueueParallel(ctx, n, func(i int) error {
		_, err := cl.EnqueueContext(ctx, asynq.NewTask("noop", nil), asynq.Queue(q), asynq.TaskID(fmt.Sprint("noop-", i)))
		return err
	}); err != nil {
		return 0, fmt.Errorf("bench: enqueue no-op: %w", err)
	}
	select {
	case <-finished:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

func enqueueParallel(ctx context.Context, n int, enqueue func(int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				if err := enqueue(i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// twoendsLevels makes n distinct small twoends levels (seeded by salt).
func twoendsLevels(n int, salt int64) []json.RawMessage {
	levels := make([]json.RawMessage, n)
	for i := range levels {
		levels[i] = fmt.Appendf(nil, `{"kind":%q,"values":[%d,%d,%d,%d,%d,%d,%d,%d]}`,
			twoends.Name, salt, i, i%7, i%13, 5, i%3, 9, i%11)
	}
	return levels
}

// benchEndToEnd runs a worker, submits n jobs as one batch and times until
// every result is stored.
func benchEndToEnd(ctx context.Context, srv Servers, cfg Config, st *store.Store, qc *queue.Client, c *client.Client, logger *slog.Logger, n int) (float64, error) {
	wst, err := store.Open(ctx, cfg.DatabaseURL, srv.WorkerStoreOpts(cfg))
	if err != nil {
		return 0, err
	}
	defer wst.Close()
	workCtx, stopWork := context.WithCancel(ctx)
	workDone := make(chan error, 1)
	go func() { workDone <- srv.Work(workCtx, cfg, wst, qc, logger) }()
	defer func() { stopWork(); <-workDone }()
	time.Sleep(500 * time.Millisecond) // let the asynq server register

	levels := twoendsLevels(n, time.Now().UnixNano()%1e9)
	start := time.Now()
	id, err := c.CreateBatch(ctx, levels, jobtype.Options{Labels: benchLabels})
	if err != nil {
		return 0, fmt.Errorf("bench: submit: %w", err)
	}
	for {
		b, err := c.GetBatch(ctx, id)
		if err != nil {
			return 0, err
		}
		if b.Done == 1 {
			if b.States[string(jobtype.Done)] != n {
				return 0, fmt.Errorf("bench: batch ended with states %v", b.States)
			}
			return float64(n) / time.Since(start).Seconds(), nil
		}
		time.Sleep(100 * time.Millisecond) // a poll reads only the batch's job rows
	}
}

// benchSubmit times POST /v1/batches of n levels (no worker runs) and
// returns the batch's id.
func benchSubmit(ctx context.Context, c *client.Client, n int) (int64, time.Duration, error) {
	levels := twoendsLevels(n, time.Now().UnixNano()%1e9+1)
	start := time.Now()
	id, err := c.CreateBatch(ctx, levels, jobtype.Options{Labels: benchLabels})
	took := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("bench: submit %d: %w", n, err)
	}
	return id, took, nil
}

// printCPU prints the CPU time per task that each process of the bench's
// tree used between two treeCPU readings.
func printCPU(before, after map[string]time.Duration, tasks int) {
	if len(after) == 0 {
		return
	}
	perTask := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/float64(tasks)) }
	byName := map[string]time.Duration{}
	var total, postgres time.Duration
	pgLine := ""
	for _, name := range slices.Sorted(maps.Keys(after)) {
		d := after[name] - before[name]
		if d <= 0 {
			continue
		}
		total += d
		if role, ok := strings.CutPrefix(name, "postgres: "); ok {
			postgres += d
			pgLine += ", " + role + " " + perTask(d)
			name = "postgres"
		}
		byName[name] += d
	}
	line := ""
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		line += ", " + name + " " + perTask(byName[name])
	}
	fmt.Printf("    CPU per task: %s µs (%s)\n", perTask(total), strings.TrimPrefix(line, ", "))
	if postgres >= time.Duration(tasks)*time.Microsecond { // at least 1 µs a task: (a) has none
		fmt.Printf("    PostgreSQL's by process: %s\n", strings.TrimPrefix(pgLine, ", "))
	}
}

// serveAPI serves the API on st and qc on a free loopback port until
// stop, and returns a client of it whose requests time out after timeout.
func serveAPI(ctx context.Context, srv Servers, cfg Config, st *store.Store, qc *queue.Client, logger *slog.Logger, timeout time.Duration) (c *client.Client, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	apiCtx, stopAPI := context.WithCancel(ctx)
	go func() { _ = api.Serve(apiCtx, ln, srv.API(cfg, st, qc, logger), logger) }()
	c = client.New("http://" + ln.Addr().String())
	c.HTTP = &http.Client{Timeout: timeout}
	return c, stopAPI, nil
}

// openBench opens what a bench command runs against: its logger, and the
// store and queue of cfg's servers, or of a throwaway embedded stack when
// cfg names none. stop closes them all.
func openBench(ctx context.Context, srv Servers, cfg *Config) (logger *slog.Logger, st *store.Store, qc *queue.Client, stop func(), err error) {
	if logger, err = srv.Logger(cfg.LogLevel); err != nil {
		return nil, nil, nil, nil, err
	}
	stopStack, err := embeddedForBench(ctx, srv, cfg, logger)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if st, qc, err = srv.Connect(ctx, *cfg, logger, store.OpenOpts{}); err != nil {
		stopStack()
		return nil, nil, nil, nil, err
	}
	return logger, st, qc, func() { qc.Close(); st.Close(); stopStack() }, nil
}

// embeddedForBench starts a throwaway embedded stack when cfg names no
// PostgreSQL and points cfg at it; stop ends it and removes its folder.
func embeddedForBench(ctx context.Context, srv Servers, cfg *Config, logger *slog.Logger) (stop func(), err error) {
	if cfg.DatabaseURL != "" {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "puzzled-bench-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the servers may run as another user
		os.RemoveAll(dir)
		return nil, err
	}
	var stopServers func()
	cfg.DatabaseURL, cfg.RedisAddr, stopServers, err = srv.Embedded(ctx, dir, logger)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return func() {
		stopServers()
		os.RemoveAll(dir)
	}, nil
}

// writeAllocs writes the heap profile, whose alloc_space and
// alloc_objects count every allocation since the start (the bench sets
// the sampling rate just before (b), so what came before is sampled
// coarsely and weighs little).
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("bench: memory profile: %w", err)
	}
	return f.Close()
}
