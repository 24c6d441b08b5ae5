package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/internal/webhook"
	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// webhookFlags declares the webhook settings (serve and dev check callback
// URLs against the allow-list; work and dev deliver). A malformed value
// from the environment is kept in cfg.webhooksErr, reported by connect.
func webhookFlags(fs *flag.FlagSet, cfg *config) {
	w := &cfg.webhooks
	allow := &allowFlag{list: &w.Allow}
	if err := allow.Set(env("PUZZLED_WEBHOOK_ALLOW_HOSTS", "")); err != nil {
		cfg.webhooksErr = fmt.Errorf("PUZZLED_WEBHOOK_ALLOW_HOSTS: %w", err)
	}
	retry := &backoffFlag{b: &w.Backoff}
	if err := retry.Set(env("PUZZLED_WEBHOOK_RETRY", webhook.DefaultBackoff.String())); err != nil {
		cfg.webhooksErr = fmt.Errorf("PUZZLED_WEBHOOK_RETRY: %w", err)
	}
	fs.Var(allow, "webhook-allow-hosts", "hosts that webhook callbacks may reach, comma-separated: names, *.domain, addresses, networks (10.0.0.0/8); loopback and private addresses only when listed as addresses or networks; empty turns webhooks off [PUZZLED_WEBHOOK_ALLOW_HOSTS]")
	fs.Var(retry, "webhook-retry", "webhook retry schedule FIRST,MAX,RETRIES: waits of FIRST·2ⁿ up to MAX between RETRIES more attempts (default about 27 h in all) [PUZZLED_WEBHOOK_RETRY]")
	fs.DurationVar(&w.Timeout, "webhook-timeout", envDuration("PUZZLED_WEBHOOK_TIMEOUT", 10*time.Second), "time limit of one webhook attempt, answer included [PUZZLED_WEBHOOK_TIMEOUT]")
	fs.Int64Var(&w.MaxResponse, "webhook-max-response", int64(envInt("PUZZLED_WEBHOOK_MAX_RESPONSE", 64<<10)), "bytes of a callback's answer read at most; a longer answer fails the attempt [PUZZLED_WEBHOOK_MAX_RESPONSE]")
	fs.IntVar(&w.Concurrency, "webhook-concurrency", envInt("PUZZLED_WEBHOOK_CONCURRENCY", 8), "webhook deliveries at once per worker process, apart from the solve slots [PUZZLED_WEBHOOK_CONCURRENCY]")
}

type allowFlag struct{ list *webhook.AllowList }

func (f *allowFlag) String() string {
	if f == nil || f.list == nil {
		return ""
	}
	return f.list.String()
}

func (f *allowFlag) Set(s string) error {
	l, err := webhook.ParseAllowList(s)
	if err != nil {
		return err
	}
	*f.list = l
	return nil
}

type backoffFlag struct{ b *webhook.Backoff }

func (f *backoffFlag) String() string {
	if f == nil || f.b == nil {
		return ""
	}
	return f.b.String()
}

func (f *backoffFlag) Set(s string) error {
	b, err := webhook.ParseBackoff(s)
	if err != nil {
		return err
	}
	*f.b = b
	return nil
}

// webhookConfig is the webhook settings with the process's logger.
func (c *config) webhookConfig(logger *slog.Logger) webhook.Config {
	w := c.webhooks
	w.Logger = logger.With(slog.String("component", "webhooks"))
	return w
}

// startWebhooks runs the webhook emitter and deliveries of a worker
// process until ctx ends; wait returns once they stopped.
func startWebhooks(ctx context.Context, cfg config, st *store.Store, qc *queue.Client, opt asynq.RedisConnOpt, logger *slog.Logger) (wait func() error) {
	done := make(chan error, 1)
	go func() { done <- webhook.Run(ctx, st, qc, opt, cfg.webhookConfig(logger)) }()
	return func() error { return <-done }
}
