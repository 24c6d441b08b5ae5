package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// Webhook signing secrets, callback URLs, and what the emitter reads of
// them (migrations/00011_webhooks.sql; the events and their delivery log
// are in webhook_events.go).

// WebhookSecret is a signing key of an owner (see the migration for the
// owner's form).
type WebhookSecret struct {
	ID        int64
	ProjectID int64 // where it was made
	Owner     string
	Secret    string
	CreatedAt time.Time
	RevokedAt *time.Time
}

// CreateWebhookSecret stores a new signing key of owner, made in project
// (0: DefaultProject; the key signs the owner's callbacks in every
// project, the project says where it was made, for the audit).
func (s *Store) CreateWebhookSecret(ctx context.Context, owner, secret string, project int64) (WebhookSecret, error) {
	w := WebhookSecret{Owner: owner, Secret: secret, ProjectID: projectOr(project)}
	err := s.pool.QueryRow(ctx, `INSERT INTO webhook_secrets (owner, secret, project_id) VALUES ($1, $2, $3) RETURNING id, created_at`,
		owner, secret, projectOr(project)).Scan(&w.ID, &w.CreatedAt)
	if err != nil {
		return WebhookSecret{}, fmt.Errorf("store: create webhook secret: %w", err)
	}
	return w, nil
}

// WebhookSecrets returns the owner's keys that are not revoked, oldest
// first.
func (s *Store) WebhookSecrets(ctx context.Context, owner string) ([]WebhookSecret, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, project_id, owner, secret, created_at, revoked_at FROM webhook_secrets
		WHERE owner = $1 AND revoked_at IS NULL ORDER BY id`, owner)
	if err != nil {
		return nil, fmt.Errorf("store: webhook secrets: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[WebhookSecret])
	if err != nil {
		return nil, fmt.Errorf("store: webhook secrets: %w", err)
	}
	return out, nil
}

// RevokeWebhookSecret revokes one of the owner's keys; ErrNotFound when the
// owner has no such key.
func (s *Store) RevokeWebhookSecret(ctx context.Context, owner string, id int64) (WebhookSecret, error) {
	var w WebhookSecret
	err := s.pool.QueryRow(ctx, `UPDATE webhook_secrets SET revoked_at = coalesce(revoked_at, now())
		WHERE id = $1 AND owner = $2 RETURNING id, project_id, owner, secret, created_at, revoked_at`, id, owner).
		Scan(&w.ID, &w.ProjectID, &w.Owner, &w.Secret, &w.CreatedAt, &w.RevokedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return WebhookSecret{}, fmt.Errorf("webhook secret %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return WebhookSecret{}, fmt.Errorf("store: revoke webhook secret: %w", err)
	}
	return w, nil
}

// NewWebhook is a callback URL named by a new batch or job.
type NewWebhook struct {
	URL   string
	Owner string // whose secrets sign its events
	// JobEvents asks for batch.jobs_finished events as the batch's jobs
	// finish, besides the batch's final event.
	JobEvents bool
}

// insertWebhooks stores a new batch's callbacks in its transaction, before
// its jobs exist, so that the outbox trigger sees every job that finishes.
func insertWebhooks(ctx context.Context, tx pgx.Tx, batchID int64, hooks []NewWebhook) error {
	for _, h := range hooks {
		if _, err := tx.Exec(ctx, `INSERT INTO webhooks (batch_id, url, owner, job_events) VALUES ($1, $2, $3, $4)`,
			batchID, h.URL, h.Owner, h.JobEvents); err != nil {
			return fmt.Errorf("insert webhook: %w", err)
		}
	}
	if len(hooks) == 0 {
		return nil
	}
	return notifyNewWebhooks(ctx, tx)
}

// NewWebhookKey is the notification that new callbacks were stored: the
// emitters read which batches and jobs they now watch.
const NewWebhookKey = "w"

// notifyNewWebhooks tells the emitters, at commit, that callbacks were added.
func notifyNewWebhooks(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, finalChannel, NewWebhookKey); err != nil {
		return fmt.Errorf("notify new webhooks: %w", err)
	}
	return nil
}

// PendingWebhookKeys returns the notification keys (BatchKey, JobKey) of
// the batches and jobs whose callbacks have no final event yet.
func (s *Store) PendingWebhookKeys(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT coalesce('b' || batch_id, 'j' || job_id) FROM webhooks WHERE finished_at IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("store: pending webhooks: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: pending webhooks: %w", err)
	}
	return keys, nil
}

// AddJobWebhooks stores the callbacks of a job outside a batch and wakes
// the emitters (the job may be final already: a cached result).
func (s *Store) AddJobWebhooks(ctx context.Context, jobID int64, hooks []NewWebhook) error {
	if len(hooks) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, h := range hooks {
			if _, err := tx.Exec(ctx, `INSERT INTO webhooks (job_id, url, owner) VALUES ($1, $2, $3)`,
				jobID, h.URL, h.Owner); err != nil {
				return err
			}
		}
		return notifyNewWebhooks(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("store: add job webhooks: %w", err)
	}
	return nil
}

// PendingWebhook is a callback whose batch or job became final while it
// has no final event yet.
type PendingWebhook struct {
	ID      int64
	BatchID *int64
	JobID   *int64
}

// FinalWebhooks returns up to limit callbacks without a final event whose
// batch (job) has no live job left: all of them with all set, else those
// of the given batches and jobs (the ones just notified).
func (s *Store) FinalWebhooks(ctx context.Context, all bool, batchIDs, jobIDs []int64, limit int) ([]PendingWebhook, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT w.id, w.batch_id, w.job_id FROM webhooks w
		WHERE w.finished_at IS NULL
			AND ($1 OR w.batch_id = ANY ($2) OR w.job_id = ANY ($3))
			AND CASE WHEN w.batch_id IS NOT NULL
				THEN NOT EXISTS (SELECT 1 FROM jobs j WHERE j.batch_id = w.batch_id AND j.state IN `+liveStates+`)
				ELSE EXISTS (SELECT 1 FROM jobs j WHERE j.id = w.job_id AND j.state NOT IN `+liveStates+`) END
		ORDER BY w.id LIMIT $4`, all, batchIDs, jobIDs, limit)
	if err != nil {
		return nil, fmt.Errorf("store: final webhooks: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[PendingWebhook])
	if err != nil {
		return nil, fmt.Errorf("store: final webhooks: %w", err)
	}
	return out, nil
}

// ReadyJobOutboxes returns the callbacks with at least minJobs finished jobs
// to report, or whose oldest has waited at least maxWait.
func (s *Store) ReadyJobOutboxes(ctx context.Context, minJobs int, maxWait time.Duration, limit int) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT webhook_id FROM webhook_job_outbox GROUP BY webhook_id
		HAVING count(*) >= $1 OR min(created_at) <= now() - $2::interval
		ORDER BY webhook_id LIMIT $3`, minJobs, maxWait, limit)
	if err != nil {
		return nil, fmt.Errorf("store: ready job outboxes: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: ready job outboxes: %w", err)
	}
	return ids, nil
}

// FinishedJob is a job reported in a batch.jobs_finished event.
type FinishedJob struct {
	JobID     int64
	BatchID   int64
	Seq       int32
	LevelHash string
	Kind      string
	State     string
	Verdict   *string
	Cached    bool
	Error     *string
}

// NewEvent is an event to store: its id, type and the exact body to send.
type NewEvent struct {
	ID   string
	Type string
	Body []byte
}

// TakeJobOutbox moves up to limit of a callback's finished jobs out of the
// outbox into one event that build makes of them, in one transaction:
// each job is reported once. It returns the event's id, "" when the
// outbox was empty (or taken by another emitter).
func (s *Store) TakeJobOutbox(ctx context.Context, webhookID int64, limit int, build func([]FinishedJob) (NewEvent, error)) (string, error) {
	var id string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := durableCommit(ctx, tx); err != nil {
			return err
		}
		var err error
		id, err = takeJobOutbox(ctx, tx, webhookID, limit, build)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("store: take job outbox: %w", err)
	}
	return id, nil
}

func takeJobOutbox(ctx context.Context, tx pgx.Tx, webhookID int64, limit int, build func([]FinishedJob) (NewEvent, error)) (string, error) {
	rows, err := tx.Query(ctx, `
		WITH taken AS (
			DELETE FROM webhook_job_outbox WHERE (webhook_id, job_id) IN (
				SELECT webhook_id, job_id FROM webhook_job_outbox WHERE webhook_id = $1
				ORDER BY job_id LIMIT $2 FOR UPDATE SKIP LOCKED)
			RETURNING job_id
		)
		SELECT j.id, j.batch_id, j.seq, j.level_hash, j.kind, j.state::text, j.verdict, j.cached, j.error
		FROM taken JOIN jobs j ON j.id = taken.job_id ORDER BY j.seq`, webhookID, limit)
	if err != nil {
		return "", err
	}
	jobs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[FinishedJob])
	if err != nil || len(jobs) == 0 {
		return "", err
	}
	ev, err := build(jobs)
	if err != nil {
		return "", err
	}
	return ev.ID, insertEvent(ctx, tx, webhookID, ev)
}

func insertEvent(ctx context.Context, tx pgx.Tx, webhookID int64, ev NewEvent) error {
	_, err := tx.Exec(ctx, `INSERT INTO webhook_events (id, webhook_id, type, body) VALUES ($1, $2, $3, $4)`,
		ev.ID, webhookID, ev.Type, string(ev.Body))
	if err != nil {
		return fmt.Errorf("insert event: %w", err)
	}
	return nil
}

// FinishWebhook ends a callback whose batch or job is final, in one
// transaction: its remaining finished jobs go out in events of up to
// limit jobs (jobEvent builds them), then the final event that final
// builds. It returns the new events' ids; none when another emitter
// finished the callback first.
func (s *Store) FinishWebhook(ctx context.Context, webhookID int64, limit int,
	jobEvent func([]FinishedJob) (NewEvent, error), final func() (NewEvent, error)) ([]string, error) {
	var ids []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		ids = nil
		if err := durableCommit(ctx, tx); err != nil {
			return err
		}
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM webhooks WHERE id = $1 AND finished_at IS NULL FOR UPDATE SKIP LOCKED`,
			webhookID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		for {
			id, err := takeJobOutbox(ctx, tx, webhookID, limit, jobEvent)
			if err != nil {
				return err
			}
			if id == "" {
				break
			}
			ids = append(ids, id)
		}
		ev, err := final()
		if err != nil {
			return err
		}
		if err := insertEvent(ctx, tx, webhookID, ev); err != nil {
			return err
		}
		ids = append(ids, ev.ID)
		_, err = tx.Exec(ctx, `UPDATE webhooks SET finished_at = now() WHERE id = $1`, webhookID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: finish webhook %d: %w", webhookID, err)
	}
	return ids, nil
}

// durableCommit makes tx's commit wait for the disk even in a worker's
// store (OpenOpts.AsyncCommit): an event lost in a crash after it was sent
// would be made anew under another id, and the receiver would see it twice.
func durableCommit(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `SET LOCAL synchronous_commit TO on`)
	return err
}

// WebhookKeys parses a notification key of the final channel into the
// batch or job it names (see JobKey, BatchKey).
func WebhookKeys(key string) (batchID, jobID int64, ok bool) {
	if len(key) < 2 {
		return 0, 0, false
	}
	id, err := strconv.ParseInt(key[1:], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	switch key[0] {
	case 'b':
		return id, 0, true
	case 'j':
		return 0, id, true
	}
	return 0, 0, false
}
