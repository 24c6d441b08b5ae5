package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/puzzled/puzzled/store"
)

// gcOptions are the collector's bounds, for the command and the periodic
// pass alike: 500 jobs a transaction (a few tens of milliseconds), and a
// rest between transactions so that submissions and solves are not held
// up (docs/service.md, "Retention").
func gcOptions() store.GCOptions { return store.GCOptions{Chunk: 500, Pause: 50 * time.Millisecond} }

// runGC is `puzzled gc`: one collection now, to the end.
func runGC(ctx context.Context, args []string) error {
	var cfg config
	fs := flagSet("gc", &cfg, flagGroups{Database: true})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return errors.New("usage: puzzled gc [flags]")
	}
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	opts, err := cfg.storeOpts(store.OpenOpts{AppName: "puzzled-gc"})
	if err != nil {
		return err
	}
	if err := store.Migrate(ctx, cfg.migrateURL(), logger); err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.databaseURL, opts)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	stats, err := st.CollectGarbage(ctx, start, gcOptions())
	fmt.Printf("deleted %d jobs, %d batches and %d levels; kept %d jobs for their level's result; rebuilt %d indexes (%.1f MB given back) (%.1f s)\n",
		stats.Jobs, stats.Batches, stats.Levels, stats.Kept, stats.Indexes, float64(stats.IndexBytes)/1e6, time.Since(start).Seconds())
	return err
}

// collectPeriodically runs a collection every `every` until ctx ends (the
// worker's periodic pass; every worker runs it, one at a time collects).
func collectPeriodically(ctx context.Context, st *store.Store, every time.Duration, logger *slog.Logger) {
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		start := time.Now()
		stats, err := st.CollectGarbage(ctx, start, gcOptions())
		switch {
		case errors.Is(err, store.ErrGCBusy) || ctx.Err() != nil:
		case err != nil:
			logger.Warn("garbage collection failed", slog.Any("error", err))
		case stats != store.GCStats{}:
			logger.Info("garbage collected", slog.Int("jobs", stats.Jobs), slog.Int("batches", stats.Batches),
				slog.Int("levels", stats.Levels), slog.Int("kept", stats.Kept), slog.Int("indexes_rebuilt", stats.Indexes),
				slog.Int64("index_bytes_freed", stats.IndexBytes), slog.Duration("took", time.Since(start)))
		}
	}
}
