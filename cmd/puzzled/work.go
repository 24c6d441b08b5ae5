package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
	"github.com/puzzled/puzzled/worker"
)

func runWork(ctx context.Context, args []string) error {
	var cfg config
	if err := flagSet("work", &cfg, flagGroups{Database: true, Redis: true, Work: true}).Parse(args); err != nil {
		return err
	}
	if min := 3 * worker.HeartbeatEvery; cfg.deadAfter < min {
		// Shorter, and a worker would take live workers for dead between two of their beats.
		return fmt.Errorf("--dead-after %s: at least %s (three heartbeats)", cfg.deadAfter, min)
	}
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	st, qc, err := connect(ctx, cfg, logger, workerStoreOpts(cfg))
	if err != nil {
		return err
	}
	defer st.Close()
	defer qc.Close()
	// asynq's server refuses to start without Redis: wait for it as for
	// PostgreSQL.
	if err := untilReachable(ctx, logger, "Redis", cfg.startTimeout, qc.Ping); err != nil {
		return err
	}
	reg := newRegistry()
	if cfg.metricsAddr != "" {
		ln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			return fmt.Errorf("metrics: listen on %s: %w", cfg.metricsAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		go func() { _ = api.Serve(ctx, ln, mux, logger) }()
		logger.Info("worker metrics listening", slog.String("addr", ln.Addr().String()))
	}
	err = serveWorker(ctx, cfg, st, qc, logger, reg)
	if errors.Is(err, worker.ErrShutdownDeadline) {
		// What is stuck may hold a connection that the deferred closes
		// would wait for: exit now (solve processes end with their parent).
		os.Exit(1)
	}
	return err
}

// serveWorker runs solve workers and the dispatcher until ctx ends. st
// should commit asynchronously (see store.OpenOpts.AsyncCommit).
func serveWorker(ctx context.Context, cfg config, st *store.Store, qc *queue.Client, logger *slog.Logger, reg prometheus.Registerer) error {
	opt, err := queue.RedisOpt(cfg.redisAddr, cfg.redisDB)
	if err != nil {
		return err
	}
	pool, err := solvePool(cfg, logger)
	if err != nil {
		return err
	}
	if pool != nil {
		// After Serve: it stops the searches, whose children then go idle.
		defer pool.Close(closePoolTimeout)
	}
	w := worker.New(worker.Config{
		Store: st, Registry: kinds.Registry(), Logger: logger,
		CheckpointEvery: cfg.checkpointEvery, Observer: worker.NewMetrics(reg),
		DifficultyPlayouts: cfg.playouts, Processes: pool, YieldToInteractive: cfg.bulkYield, DeadAfter: cfg.deadAfter,
	})
	worker.RegisterYieldMetrics(reg, w)
	worker.RegisterReachMetrics(reg, w)
	d := queue.NewDispatcher(queue.DispatcherConfig{
		Store: st, Client: qc, Logger: logger, Stale: cfg.staleAfter, Owner: w.Owner(),
	})
	raiseMaxProcs(cfg, logger)
	tuneGC(logger)
	logger.Info("worker started", slog.Int("concurrency", cfg.concurrency), slog.Int("interactive_slots", cfg.interactive),
		slog.String("bulk_priority", cfg.bulkPriority), slog.Bool("bulk_yield", cfg.bulkYield && pool != nil), slog.String("worker_id", w.Owner().ID))
	hookCtx, stopWebhooks := context.WithCancel(ctx)
	waitWebhooks := startWebhooks(hookCtx, cfg, st, qc, opt, logger)
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		collectPeriodically(hookCtx, st, cfg.gcEvery, logger)
	}()
	defer func() { <-gcDone }()
	err = worker.Serve(ctx, w, worker.ServeConfig{Redis: opt, Concurrency: cfg.concurrency,
		InteractiveSlots: cfg.interactive, InteractivePoll: cfg.interactivePoll, Dispatcher: d, Queue: qc, Logger: logger,
		ShutdownTimeout: cfg.shutdownTimeout})
	stopWebhooks() // and the garbage collection
	if errors.Is(err, worker.ErrShutdownDeadline) {
		return err // the webhook deliveries may be stuck on the same Redis
	}
	return errors.Join(err, waitWebhooks())
}

// workerStoreOpts: asynchronous commits, a pool of --db-conns
// (workerPoolSize by default), and the heartbeats on a connection of
// their own.
func workerStoreOpts(cfg config) store.OpenOpts {
	host, _ := os.Hostname()
	conns := cfg.dbConns
	if conns <= 0 {
		conns = workerPoolSize(cfg.concurrency + cfg.interactive)
	}
	return store.OpenOpts{AsyncCommit: true, MaxConns: int32(conns), HeartbeatConn: true, MaxConnIdle: time.Minute,
		AppName: "puzzled-work@" + host}
}

// workerPoolSize is a worker's pool for slots solves at once. A solve
// holds a connection only for a moment: starts and results of concurrent
// solves go in one statement each (the write mergers), a bundle's claim and
// a running job's state poll are single-row reads. Four cover the mergers,
// the dispatcher and the webhooks; one more per eight slots covers claims,
// polls and checkpoints. It was slots + 8, so that ten workers of 32 slots
// asked for 410 connections of a table of 100.
func workerPoolSize(slots int) int { return 4 + slots/8 }

// raiseMaxProcs gives the Go scheduler a thread per solve slot plus two for
// the API, the dispatcher and I/O. With only one per CPU, busy bulk
// searches hold every P and an interactive job (or, under puzzled dev,
// an API request) waits up to a 10 ms preemption slice at each step:
// measured 424 ms p50 submit-to-done with both bulk slots busy on 2 CPUs.
// With more threads than CPUs the kernel shares the CPUs instead, and it
// runs a thread that wakes from I/O promptly.
func raiseMaxProcs(cfg config, logger *slog.Logger) {
	want := cfg.concurrency + cfg.interactive + 2
	if have := runtime.GOMAXPROCS(0); have < want {
		runtime.GOMAXPROCS(want)
		logger.Info("GOMAXPROCS raised for the solve slots", slog.Int("from", have), slog.Int("to", want))
	}
}
