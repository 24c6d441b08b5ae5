package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/puzzled/puzzled/queue"
	"github.com/puzzled/puzzled/store"
)

// Deliverer is the asynq handler of webhook deliveries: each task is one
// attempt at one event, recorded in the delivery log. A failed attempt
// returns an error and asynq retries the task after Backoff.Delay (its
// server's RetryDelayFunc); a refusal by policy, or the last attempt,
// fails the event for good. Delivery is at least once: a receiver drops
// repeats by the event id.
type Deliverer struct {
	cfg    Config
	store  *store.Store
	sender *sender
}

// NewDeliverer returns the handler for cfg (defaults filled).
func NewDeliverer(st *store.Store, cfg Config) *Deliverer {
	cfg = cfg.WithDefaults()
	return &Deliverer{cfg: cfg, store: st, sender: newSender(cfg)}
}

// Handle makes one attempt.
func (d *Deliverer) Handle(ctx context.Context, t *asynq.Task) error {
	p, err := queue.WebhookPayloadOf(t)
	if err != nil {
		return err
	}
	ev, err := d.store.EventForDelivery(ctx, p.EventID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %w", err, asynq.SkipRetry)
	}
	if err != nil {
		return err
	}
	if ev.State != store.EventPending || ev.Generation != p.Generation {
		return nil // delivered already, or redelivered under a newer task
	}
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	start := d.cfg.Now()
	ans := d.sender.send(ctx, ev.URL, eventHeaders{ev.ID, ev.Type}, ev.Body, ev.Secrets, start)
	rec := store.DeliveryRecord{EventID: ev.ID, Generation: ev.Generation, Started: start,
		Duration: d.cfg.Now().Sub(start), Response: ans.head}
	if ans.status != 0 {
		rec.StatusCode = &ans.status
	}
	switch {
	case ans.err == nil:
		rec.State = store.EventDelivered
	case IsRefused(ans.err) || retried >= maxRetry:
		rec.State = store.EventFailed
	default:
		rec.State = store.EventPending
		next := start.Add(d.cfg.Backoff.Delay(retried))
		rec.NextAttempt = &next
	}
	if ans.err != nil {
		msg := ans.err.Error()
		rec.Error = &msg
	}
	attempt, err := d.store.RecordDelivery(context.WithoutCancel(ctx), rec)
	if err != nil {
		return err // asynq tries again; the receiver may see this event twice
	}
	d.log(ev, attempt, rec, ans)
	switch rec.State {
	case store.EventPending:
		return ans.err
	case store.EventFailed:
		return fmt.Errorf("%w: %w", ans.err, asynq.SkipRetry)
	}
	return nil
}

func (d *Deliverer) log(ev store.DeliveryEvent, attempt int32, rec store.DeliveryRecord, ans answer) {
	attrs := []any{slog.String("event_id", ev.ID), slog.String("type", ev.Type), slog.String("url", ev.URL),
		slog.Int("attempt", int(attempt)), slog.Int("status", ans.status), slog.Duration("took", rec.Duration)}
	switch rec.State {
	case store.EventDelivered:
		d.cfg.Logger.Info("webhook delivered", attrs...)
	case store.EventFailed:
		d.cfg.Logger.Warn("webhook failed for good", append(attrs, slog.Any("error", ans.err))...)
	default:
		d.cfg.Logger.Info("webhook attempt failed; retrying", append(attrs, slog.Any("error", ans.err),
			slog.Time("next_attempt", *rec.NextAttempt))...)
	}
}

// Enqueue hands an event's delivery task to asynq.
func Enqueue(ctx context.Context, qc *queue.Client, cfg Config, e store.EventTask) error {
	cfg = cfg.WithDefaults()
	return qc.EnqueueWebhook(ctx, queue.WebhookPayload{EventID: e.ID, Generation: e.Generation},
		cfg.Backoff.Retries, cfg.TaskTimeout())
}

// retryDelay is the webhook server's RetryDelayFunc.
func (d *Deliverer) retryDelay(n int, _ error, _ *asynq.Task) time.Duration {
	return d.cfg.Backoff.Delay(n)
}
