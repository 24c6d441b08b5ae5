package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/solver/kinds"
	"github.com/puzzled/puzzled/store"
)

func runServe(ctx context.Context, args []string) error {
	var cfg config
	if err := flagSet("serve", &cfg, flagGroups{Database: true, Redis: true, HTTP: true}).Parse(args); err != nil {
		return err
	}
	if cfg.tokensErr != nil {
		return cfg.tokensErr
	}
	logger, err := cfg.logger()
	if err != nil {
		return err
	}
	st, qc, err := connect(ctx, cfg, logger, store.OpenOpts{AppName: "puzzled-serve"})
	if err != nil {
		return err
	}
	defer st.Close()
	defer qc.Close()
	ln, err := net.Listen("tcp", cfg.httpAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.httpAddr, err)
	}
	logger.Info("api listening", slog.String("addr", ln.Addr().String()))
	return api.Serve(ctx, ln, newAPI(cfg, st, qc, logger, newRegistry()), logger)
}

func newAPI(cfg config, st *store.Store, qc *queue.Client, logger *slog.Logger, reg *prometheus.Registry) *api.Server {
	return api.New(api.Config{
		Store: st, Queue: qc, Registry: kinds.Registry(), Logger: logger,
		Limits: cfg.limits, Tokens: cfg.tokens, Metrics: reg, Webhooks: cfg.webhookConfig(logger),
	})
}

// newRegistry is a Prometheus registry with the Go runtime and process
// collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// connect migrates the database, then opens the store and the queue client.
func connect(ctx context.Context, cfg config, logger *slog.Logger, opts store.OpenOpts) (*store.Store, *queue.Client, error) {
	if cfg.webhooksErr != nil {
		return nil, nil, cfg.webhooksErr
	}
	opts, err := cfg.storeOpts(opts)
	if err != nil {
		return nil, nil, err
	}
	if opts.Logger == nil {
		opts.Logger = logger
	}
	opts.VacuumIfNoAutovacuum = cfg.vacuumIfNoAutovacuum
	var st *store.Store
	err = untilReachable(ctx, logger, "PostgreSQL", cfg.startTimeout, func() error {
		if err := store.Migrate(ctx, cfg.migrateURL(), logger); err != nil {
			return err
		}
		var err error
		st, err = store.Open(ctx, cfg.databaseURL, opts)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	opt, err := queue.RedisOpt(cfg.redisAddr, cfg.redisDB)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, queue.NewClient(opt), nil
}
