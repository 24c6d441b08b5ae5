package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// runDev runs the API and a worker in one process on an embedded PostgreSQL
// and Redis whose data and password live in --data-dir. The HTTP flags and
// the API token variables are those of serve.
func runDev(ctx context.Context, args []string) error {
	cfg := config{checkpointEvery: 5 * time.Second, staleAfter: 30 * time.Second, interactivePoll: queue.InteractivePoll,
		gcEvery: 10 * time.Minute}
	fs := flagSet("dev", &cfg, flagGroups{HTTP: true})
	dataDir := fs.String("data-dir", env("PUZZLED_DATA_DIR", ".puzzled"), "folder of the embedded PostgreSQL and Redis data and their password [PUZZLED_DATA_DIR]")
	fs.IntVar(&cfg.concurrency, "concurrency", envInt("PUZZLED_CONCURRENCY", runtime.NumCPU()), "solves at once [PUZZLED_CONCURRENCY]")
	fs.IntVar(&cfg.interactive, "interactive-slots", envInt("PUZZLED_INTERACTIVE_SLOTS", 1), "solves reserved for interactive jobs, on top of --concurrency [PUZZLED_INTERACTIVE_SLOTS]")
	bulkPriorityFlag(fs, &cfg.bulkPriority, &cfg.bulkYield)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.tokensErr != nil {
		return cfg.tokensErr
	}
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { // the servers may run as another user, who must get through
		return fmt.Errorf("dev: data folder: %w", err)
	}
	password, err := devPassword(dir, logger)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.httpAddr)
	if err != nil {
		return fmt.Errorf("dev: listen on %s (another puzzled dev running? use --http-addr): %w", cfg.httpAddr, err)
	}
	stack, err := startEmbedded(ctx, dir, password, logger)
	if err != nil {
		ln.Close()
		return err
	}
	defer stack.stop(logger)
	cfg.databaseURL, cfg.redisAddr = stack.pg.URL(), stack.redis.URL()

	st, qc, err := connect(ctx, cfg, logger, store.OpenOpts{AppName: "puzzled-dev"})
	if err != nil {
		ln.Close()
		return err
	}
	defer st.Close()
	defer qc.Close()
	storedTokens, err := st.HasTokens(ctx)
	if err != nil {
		ln.Close()
		return err
	}

	logger.Info("api listening", slog.String("addr", ln.Addr().String()), slog.String("data_dir", dir),
		slog.Bool("tokens_required", len(cfg.tokens) > 0 || storedTokens))
	devBanner{
		apiURL: "http://" + ln.Addr().String(), dir: dir, tokensOn: len(cfg.tokens) > 0 || storedTokens,
		postgresPort: stack.pg.Port(), redisPort: stack.redis.Port(), redisInMemory: stack.redis.InProcess(),
	}.print(os.Stdout)

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
