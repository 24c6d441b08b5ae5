package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"

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
	if err := flagSet("work", &cfg, true, true, false, true).Parse(args); err != nil {
		return err
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
	return serveWorker(ctx, cfg, st, qc, logger, reg)
}

// serveWorker runs solve workers and the dispatcher until ctx ends. st
// should commit asynchronously (see store.OpenOpts.AsyncCommit).
func serveWorker(ctx context.Context, cfg config, st *store.Store, qc *queue.Client, logger *slog.Logger, reg prometheus.Registerer) error {
	opt, err := queue.RedisOpt(cfg.redisAddr, cfg.redisDB)
	if err != nil {
		return err
	}
	w := worker.New(worker.Config{
		Store: st, Registry: kinds.Registry(), Logger: logger,
		CheckpointEvery: cfg.checkpointEvery, Observer: worker.NewMetrics(reg),
		DifficultyPlayouts: cfg.playouts,
	})
	d := queue.NewDispatcher(queue.DispatcherConfig{
		Store: st, Client: qc, Logger: logger, Stale: cfg.staleAfter,
	})
	logger.Info("worker started", slog.Int("concurrency", cfg.concurrency))
	return worker.Serve(ctx, w, worker.ServeConfig{Redis: opt, Concurrency: cfg.concurrency, Dispatcher: d, Logger: logger})
}

// workerStoreOpts: asynchronous commits, and a connection per solve plus
// room for the dispatcher and checkpoints.
func workerStoreOpts(cfg config) store.OpenOpts {
	return store.OpenOpts{AsyncCommit: true, MaxConns: int32(cfg.concurrency) + 8}
}
