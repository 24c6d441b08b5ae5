package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/puzzled/puzzled/internal/bench"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

func runBench(ctx context.Context, args []string) error { return bench.Run(ctx, args, benchServers()) }

func runBenchQuery(ctx context.Context, args []string) error {
	return bench.RunQuery(ctx, args, benchServers())
}

func runBenchFair(ctx context.Context, args []string) error {
	return bench.RunFair(ctx, args, benchServers())
}

func runBenchRetention(ctx context.Context, args []string) error {
	return bench.RunRetention(ctx, args, benchServers())
}

// benchServers hands the bench commands this command's servers, wired as
// serve, work and dev wire them.
func benchServers() bench.Servers {
	return bench.Servers{
		Logger:    func(level string) (*slog.Logger, error) { return (&config{logLevel: level}).logger() },
		BulkFlags: bulkPriorityFlag,
		Embedded: func(ctx context.Context, dir string, logger *slog.Logger) (string, string, func(), error) {
			stack, err := startEmbedded(ctx, dir, newPassword(), logger)
			if err != nil {
				return "", "", nil, err
			}
			return stack.pg.URL(), stack.redis.URL(), func() { stack.stop(logger) }, nil
		},
		Connect: func(ctx context.Context, c bench.Config, logger *slog.Logger, opts store.OpenOpts) (*store.Store, *queue.Client, error) {
			return connect(ctx, benchConfig(c), logger, opts)
		},
		API: func(c bench.Config, st *store.Store, qc *queue.Client, logger *slog.Logger) http.Handler {
			return newAPI(benchConfig(c), st, qc, logger, prometheus.NewRegistry())
		},
		Work: func(ctx context.Context, c bench.Config, st *store.Store, qc *queue.Client, logger *slog.Logger) error {
			return serveWorker(ctx, benchConfig(c), st, qc, logger, prometheus.NewRegistry())
		},
		WorkerStoreOpts: func(c bench.Config) store.OpenOpts {
			cfg := benchConfig(c)
			opts, _ := cfg.storeOpts(workerStoreOpts(cfg)) // Connect, which runs first, reports a bad --database-pooler
			return opts
		},
	}
}

// benchConfig is the configuration of a bench's servers.
func benchConfig(c bench.Config) config {
	return config{
		databaseURL: c.DatabaseURL, directURL: c.DirectURL, pooler: c.Pooler, redisAddr: c.RedisAddr, redisDB: c.RedisDB,
		concurrency: c.Concurrency, interactive: c.InteractiveSlots, interactivePoll: c.InteractivePoll,
		checkpointEvery: c.CheckpointEvery, staleAfter: c.StaleAfter,
		bulkPriority: c.BulkPriority, bulkYield: c.BulkYield, logLevel: c.LogLevel, limits: c.Limits,
		vacuumIfNoAutovacuum: true, // as serve's default
	}
}
