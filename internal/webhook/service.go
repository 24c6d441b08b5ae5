package webhook

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// Run runs the webhooks of a worker process until ctx ends: a listener of
// final jobs, the emitter, and an asynq server of its own that serves only
// queue.Webhooks with cfg.Concurrency deliveries at once.
func Run(ctx context.Context, st *store.Store, qc *queue.Client, redis asynq.RedisConnOpt, cfg Config) error {
	cfg = cfg.WithDefaults()
	d := NewDeliverer(st, cfg)
	srv := asynq.NewServer(redis, asynq.Config{
		Concurrency:              cfg.Concurrency,
		Queues:                   map[string]int{queue.Webhooks: 1},
		RetryDelayFunc:           d.retryDelay,
		DelayedTaskCheckInterval: cfg.DelayedCheck,
		TaskCheckInterval:        queue.TaskCheckInterval,
		ShutdownTimeout:          cfg.Timeout + 5*time.Second,
		Logger:                   asynqLogger{cfg.Logger.With(slog.String("component", "asynq-webhooks"))},
		LogLevel:                 asynq.WarnLevel,
	})
	mux := asynq.NewServeMux()
	mux.HandleFunc(queue.TypeWebhook, d.Handle)
	if err := srv.Start(mux); err != nil {
		return fmt.Errorf("webhook: start asynq server: %w", err)
	}
	defer srv.Shutdown()
	l := st.NewListener(cfg.Logger)
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	go l.Run(lctx)
	select {
	case <-l.Ready():
	case <-ctx.Done():
		return nil
	}
	cfg.Logger.Info("webhooks started", slog.String("allow", cfg.Allow.String()), slog.String("retry", cfg.Backoff.String()),
		slog.String("retry_span", cfg.Backoff.Span().Round(time.Minute).String()))
	NewEmitter(st, qc, cfg).Run(ctx, l)
	return nil
}

// asynqLogger adapts slog to asynq's printf-style Logger interface.
type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a asynqLogger) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }
func (a asynqLogger) Fatal(args ...any) { a.l.Error(fmt.Sprint(args...)) }
