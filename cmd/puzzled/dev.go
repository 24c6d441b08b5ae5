package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/internal/devstack"
	"github.com/puzzled/puzzled/store"
)

func runDev(ctx context.Context, args []string) error {
	cfg := config{
		concurrency:     runtime.NumCPU(),
		interactive:     1,
		checkpointEvery: 5 * time.Second,
		staleAfter:      30 * time.Second,
	}
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	dataDir := fs.String("data-dir", env("PUZZLED_DATA_DIR", ".puzzled"), "folder of the embedded PostgreSQL and Redis data [PUZZLED_DATA_DIR]")
	fs.StringVar(&cfg.httpAddr, "http-addr", env("PUZZLED_HTTP_ADDR", "127.0.0.1:8080"), "HTTP listen address [PUZZLED_HTTP_ADDR]")
	fs.IntVar(&cfg.concurrency, "concurrency", cfg.concurrency, "solves at once")
	fs.IntVar(&cfg.interactive, "interactive-slots", envInt("PUZZLED_INTERACTIVE_SLOTS", cfg.interactive), "solves reserved for interactive jobs [PUZZLED_INTERACTIVE_SLOTS]")
	fs.StringVar(&cfg.logLevel, "log-level", env("PUZZLED_LOG_LEVEL", "info"), "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.limits.MaxAttempts = 5
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dev: data folder: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.httpAddr)
	if err != nil {
		return fmt.Errorf("dev: listen on %s (another puzzled dev running? use --http-addr): %w", cfg.httpAddr, err)
	}
	stack, err := startEmbedded(ctx, dir, logger)
	if err != nil {
		ln.Close()
		return err
	}
	defer stack.stop(logger)
	cfg.databaseURL, cfg.redisAddr = stack.pg.URL(), stack.redis.Addr()

	st, qc, err := connect(ctx, cfg, logger, store.OpenOpts{})
	if err != nil {
		ln.Close()
		return err
	}
	defer st.Close()
	defer qc.Close()

	url := "http://" + ln.Addr().String()
	logger.Info("api listening", slog.String("addr", ln.Addr().String()), slog.String("data_dir", dir))
	fmt.Printf(`puzzled dev is running: API at %s (data in %s)
Try:
  curl -s -X POST %[1]s/v1/jobs -d '{"kind":"twoends","values":[3,1,2]}'
  curl -s %[1]s/v1/jobs/1/solution
Press Ctrl-C to stop.
`, url, dir)

	reg := newRegistry() // one process: the API's /metrics shows the worker's too
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = api.Serve(ctx, ln, newAPI(cfg, st, qc, logger, reg), logger) })
	wg.Go(func() {
		wst, err := store.Open(ctx, cfg.databaseURL, workerStoreOpts(cfg))
		if err != nil {
			errs[1] = err
			return
		}
		defer wst.Close()
		errs[1] = serveWorker(ctx, cfg, wst, qc, logger, reg)
	})
	wg.Wait()
	return errors.Join(errs...)
}

// embedded is the dev stack's PostgreSQL and Redis child processes.
type embedded struct {
	pg    *devstack.Postgres
	redis *devstack.Redis
}

func startEmbedded(ctx context.Context, dir string, logger *slog.Logger) (*embedded, error) {
	pg, err := devstack.StartPostgres(ctx, devstack.PostgresConfig{Dir: filepath.Join(dir, "postgres"), Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("dev: embedded PostgreSQL: %w", err)
	}
	redis, err := devstack.StartRedis(ctx, devstack.RedisConfig{Dir: filepath.Join(dir, "redis"), Persist: true, Logger: logger})
	if err != nil {
		_ = pg.Stop(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("dev: embedded Redis: %w", err)
	}
	logger.Info("embedded stack up", slog.String("postgres", pg.URL()), slog.String("redis", redis.Addr()))
	return &embedded{pg: pg, redis: redis}, nil
}

func (e *embedded) stop(logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.redis.Stop(ctx); err != nil {
		logger.Warn("stopping embedded Redis", slog.Any("error", err))
	}
	if err := e.pg.Stop(ctx); err != nil {
		logger.Warn("stopping embedded PostgreSQL", slog.Any("error", err))
	}
	logger.Info("embedded stack stopped")
}
