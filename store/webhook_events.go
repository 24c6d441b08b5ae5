package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Webhook events and their delivery log (migrations/00011_webhooks.sql).

// Event states.
const (
	EventPending   = "pending"
	EventDelivered = "delivered"
	EventFailed    = "failed"
)

// EventTask names the asynq task of an event's current generation.
type EventTask struct {
	ID         string
	Generation int32
}

// ClaimPendingEvents returns up to limit pending events that were never
// handed to asynq, or whose next attempt is more than stale overdue (their
// task may have been lost with Redis), and stamps them as handed now.
// SKIP LOCKED lets several emitters share the work.
func (s *Store) ClaimPendingEvents(ctx context.Context, stale time.Duration, limit int) ([]EventTask, error) {
	rows, err := s.pool.Query(ctx, `
		WITH c AS (
			SELECT id FROM webhook_events
			WHERE state = 'pending'
				AND (enqueued_at IS NULL OR coalesce(greatest(next_attempt_at, enqueued_at), enqueued_at) < now() - $1::interval)
			ORDER BY enqueued_at NULLS FIRST, id LIMIT $2
			FOR UPDATE SKIP LOCKED
		)
		UPDATE webhook_events e SET enqueued_at = now() FROM c WHERE e.id = c.id
		RETURNING e.id, e.generation`, stale, limit)
	if err != nil {
		return nil, fmt.Errorf("store: claim pending events: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[EventTask])
	if err != nil {
		return nil, fmt.Errorf("store: claim pending events: %w", err)
	}
	return out, nil
}

// DeliveryEvent is what an attempt needs: the event, where it goes and the
// owner's signing keys (newest first).
type DeliveryEvent struct {
	ID         string
	Type       string
	Body       []byte
	State      string
	Generation int32
	URL        string
	Secrets    []string
}

// EventForDelivery loads an event for an attempt.
func (s *Store) EventForDelivery(ctx context.Context, id string) (DeliveryEvent, error) {
	var e DeliveryEvent
	var body string
	err := s.pool.QueryRow(ctx, `
		SELECT e.id, e.type, e.body, e.state, e.generation, w.url,
			coalesce(array(SELECT k.secret FROM webhook_secrets k WHERE k.owner = w.owner AND k.revoked_at IS NULL
				ORDER BY k.id DESC), '{}')
		FROM webhook_events e JOIN webhooks w ON w.id = e.webhook_id WHERE e.id = $1`, id).
		Scan(&e.ID, &e.Type, &body, &e.State, &e.Generation, &e.URL, &e.Secrets)
	if errors.Is(err, pgx.ErrNoRows) {
		return DeliveryEvent{}, fmt.Errorf("webhook event %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return DeliveryEvent{}, fmt.Errorf("store: event for delivery: %w", err)
	}
	e.Body = []byte(body)
	return e, nil
}

// DeliveryRecord is the outcome of one attempt, for RecordDelivery.
type DeliveryRecord struct {
	EventID    string
	Generation int32 // the attempt's; a newer generation makes the record a no-op
	Started    time.Time
	Duration   time.Duration
	StatusCode *int
	Error      *string // nil: delivered
	Response   string
	// State is the event's state afterwards: delivered, pending (another
	// attempt at NextAttempt) or failed.
	State       string
	NextAttempt *time.Time
}

// RecordDelivery logs an attempt and moves its event on, in one statement.
// It returns the attempt's number, or 0 when the event was not pending in
// that generation any more (delivered meanwhile, or redelivered).
func (s *Store) RecordDelivery(ctx context.Context, r DeliveryRecord) (int32, error) {
	var attempt int32
	err := s.pool.QueryRow(ctx, `
		WITH e AS (
			UPDATE webhook_events SET attempts = attempts + 1, state = $7, next_attempt_at = $8, last_error = $6,
				delivered_at = CASE WHEN $7 = 'delivered' THEN now() END
			WHERE id = $1 AND generation = $2 AND state = 'pending'
			RETURNING attempts
		)
		INSERT INTO webhook_deliveries (event_id, attempt, generation, started_at, duration_ms, status_code, error, response)
		SELECT $1, e.attempts, $2, $3, $4, $5, $6, $9 FROM e
		RETURNING attempt`,
		r.EventID, r.Generation, r.Started, int32(r.Duration.Milliseconds()), r.StatusCode, r.Error, r.State, r.NextAttempt,
		r.Response).Scan(&attempt)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: record delivery: %w", err)
	}
	return attempt, nil
}

// WebhookEvent is an event as the delivery log shows it.
type WebhookEvent struct {
	ID            string
	Type          string
	URL           string
	State         string
	Attempts      int32
	Generation    int32
	CreatedAt     time.Time
	NextAttemptAt *time.Time
	DeliveredAt   *time.Time
	LastError     *string
}

// Delivery is one attempt of the log.
type Delivery struct {
	ID         int64
	EventID    string
	EventType  string
	URL        string
	Attempt    int32
	Generation int32
	StartedAt  time.Time
	DurationMS int32
	StatusCode *int32
	Error      *string
	Response   *string
}

// DeliveryLog is the events of a batch's (or job's) callbacks, oldest
// first, and their attempts, newest first, each list at most limit long.
type DeliveryLog struct {
	Events     []WebhookEvent
	Deliveries []Delivery
}

const eventColumns = `e.id, e.type, w.url, e.state, e.attempts, e.generation, e.created_at, e.next_attempt_at,
	e.delivered_at, e.last_error`

// BatchDeliveries returns the delivery log of a batch's callbacks;
// ErrNotFound for an unknown batch.
func (s *Store) BatchDeliveries(ctx context.Context, batchID int64, limit int) (DeliveryLog, error) {
	return s.deliveryLog(ctx, "batches", "w.batch_id", batchID, limit)
}

// JobDeliveries returns the delivery log of a job's callbacks; ErrNotFound
// for an unknown job.
func (s *Store) JobDeliveries(ctx context.Context, jobID int64, limit int) (DeliveryLog, error) {
	return s.deliveryLog(ctx, "jobs", "w.job_id", jobID, limit)
}

func (s *Store) deliveryLog(ctx context.Context, table, column string, id int64, limit int) (DeliveryLog, error) {
	var log DeliveryLog
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE id = $1)`, id).Scan(&exists); err != nil {
		return log, fmt.Errorf("store: delivery log: %w", err)
	}
	if !exists {
		return log, fmt.Errorf("%s %d: %w", table[:len(table)-1], id, ErrNotFound)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+eventColumns+`
		FROM webhooks w JOIN webhook_events e ON e.webhook_id = w.id
		WHERE `+column+` = $1 ORDER BY e.created_at, e.id LIMIT $2`, id, limit)
	if err != nil {
		return log, fmt.Errorf("store: delivery log: %w", err)
	}
	if log.Events, err = pgx.CollectRows(rows, pgx.RowToStructByPos[WebhookEvent]); err != nil {
		return log, fmt.Errorf("store: delivery log: %w", err)
	}
	rows, err = s.pool.Query(ctx, `
		SELECT d.id, d.event_id, e.type, w.url, d.attempt, d.generation, d.started_at, d.duration_ms,
			d.status_code, d.error, d.response
		FROM webhooks w JOIN webhook_events e ON e.webhook_id = w.id JOIN webhook_deliveries d ON d.event_id = e.id
		WHERE `+column+` = $1 ORDER BY d.id DESC LIMIT $2`, id, limit)
	if err != nil {
		return log, fmt.Errorf("store: delivery log: %w", err)
	}
	if log.Deliveries, err = pgx.CollectRows(rows, pgx.RowToStructByPos[Delivery]); err != nil {
		return log, fmt.Errorf("store: delivery log: %w", err)
	}
	return log, nil
}

// Redeliver starts a new generation of an event: pending again, its retry
// schedule afresh, stamped as handed to asynq now (the caller enqueues
// it). ErrNotFound for an unknown event.
func (s *Store) Redeliver(ctx context.Context, id string) (WebhookEvent, error) {
	var e WebhookEvent
	err := s.pool.QueryRow(ctx, `
		WITH e AS (
			UPDATE webhook_events SET generation = generation + 1, state = 'pending', enqueued_at = now(),
				next_attempt_at = NULL, delivered_at = NULL
			WHERE id = $1 RETURNING *
		)
		SELECT `+eventColumns+` FROM e JOIN webhooks w ON w.id = e.webhook_id`, id).
		Scan(&e.ID, &e.Type, &e.URL, &e.State, &e.Attempts, &e.Generation, &e.CreatedAt, &e.NextAttemptAt,
			&e.DeliveredAt, &e.LastError)
	if errors.Is(err, pgx.ErrNoRows) {
		return WebhookEvent{}, fmt.Errorf("webhook event %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("store: redeliver: %w", err)
	}
	return e, nil
}
