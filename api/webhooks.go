package api

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/internal/webhook"
	"github.com/puzzled/puzzled/solver"
	"github.com/puzzled/puzzled/store"
)

// Webhooks (docs/webhooks.md): the callback URLs of new batches and jobs,
// the signing secrets of the caller's token, the delivery log, and
// redelivery. Delivering is the worker processes' (internal/webhook).

// maxCallbacks caps the callback URLs of one batch or job.
const maxCallbacks = 10

// maxDeliveryLog caps the events and the attempts a delivery log lists.
const maxDeliveryLog = 1000

type principalKey struct{}

func withPrincipal(r *http.Request, p principal) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
}

func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey{}).(principal)
	return p
}

// callbackWebhooks checks the callbacks of a new batch (batch) or job: at
// most maxCallbacks, each URL allowed by the operator's allow-list, job
// events only for a batch, and a signing secret of the caller to sign
// them. Errors are *solver.FieldError naming the callback.
func (s *Server) callbackWebhooks(ctx context.Context, callbacks []wire.Callback, batch bool) ([]store.NewWebhook, error) {
	if len(callbacks) == 0 {
		return nil, nil
	}
	if len(callbacks) > maxCallbacks {
		return nil, &solver.FieldError{Field: "callbacks", Reason: fmt.Sprintf("at most %d callbacks", maxCallbacks)}
	}
	owner := principalOf(ctx).owner
	out := make([]store.NewWebhook, len(callbacks))
	for i, c := range callbacks {
		field := fmt.Sprintf("callbacks[%d]", i)
		if _, err := s.cfg.Webhooks.Allow.CheckURL(c.URL); err != nil {
			return nil, &solver.FieldError{Field: field + ".url", Reason: err.Error()}
		}
		if c.JobEvents && !batch {
			return nil, &solver.FieldError{Field: field + ".job_events", Reason: "only a batch has job events"}
		}
		out[i] = store.NewWebhook{URL: c.URL, Owner: owner, JobEvents: c.JobEvents}
	}
	secrets, err := s.cfg.Store.WebhookSecrets(ctx, owner)
	if err != nil {
		return nil, err
	}
	if len(secrets) == 0 {
		return nil, &solver.FieldError{Field: "callbacks",
			Reason: "this token has no webhook secret to sign events with: create one with POST /v1/webhook-secrets"}
	}
	return out, nil
}

// newSecret makes a signing secret: 32 random bytes, base64url.
func newSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// secretHint shows a secret without giving it away.
func secretHint(secret string) string {
	if len(secret) < 14 {
		return "whsec_…"
	}
	return secret[:10] + "…" + secret[len(secret)-4:]
}

func toWireSecret(w store.WebhookSecret) wire.WebhookSecret {
	return wire.WebhookSecret{ID: w.ID, Owner: w.Owner, Hint: secretHint(w.Secret), CreatedAt: w.CreatedAt, RevokedAt: w.RevokedAt}
}

func (s *Server) createWebhookSecret(w http.ResponseWriter, r *http.Request) {
	project, err := s.requestProject(r, "", roleSubmit)
	if !s.scopeAnswered(w, r, err) {
		return
	}
	sec, err := s.cfg.Store.CreateWebhookSecret(r.Context(), principalOf(r.Context()).owner, newSecret(), project)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.audit(r, &project, "webhook_secret.create", strconv.FormatInt(sec.ID, 10), nil)
	out := toWireSecret(sec)
	out.Secret = sec.Secret // shown this once
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) listWebhookSecrets(w http.ResponseWriter, r *http.Request) {
	list, err := s.cfg.Store.WebhookSecrets(r.Context(), principalOf(r.Context()).owner)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	out := wire.WebhookSecretList{Secrets: make([]wire.WebhookSecret, len(list))}
	for i, sec := range list {
		out.Secrets[i] = toWireSecret(sec)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) revokeWebhookSecret(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	sec, err := s.cfg.Store.RevokeWebhookSecret(r.Context(), principalOf(r.Context()).owner, id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	s.audit(r, &sec.ProjectID, "webhook_secret.revoke", strconv.FormatInt(sec.ID, 10), nil)
	writeJSON(w, http.StatusOK, toWireSecret(sec))
}

func (s *Server) batchDeliveries(w http.ResponseWriter, r *http.Request) {
	s.deliveries(w, r, s.cfg.Store.BatchDeliveries)
}

func (s *Server) jobDeliveries(w http.ResponseWriter, r *http.Request) {
	s.deliveries(w, r, s.cfg.Store.JobDeliveries)
}

func (s *Server) deliveries(w http.ResponseWriter, r *http.Request, read func(context.Context, int64, int) (store.DeliveryLog, error)) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	log, err := read(r.Context(), id, maxDeliveryLog)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	out := wire.Deliveries{Events: make([]wire.WebhookEvent, len(log.Events)), Deliveries: make([]wire.Delivery, len(log.Deliveries))}
	for i, e := range log.Events {
		out.Events[i] = toWireEvent(e)
	}
	for i, d := range log.Deliveries {
		out.Deliveries[i] = wire.Delivery{ID: d.ID, EventID: d.EventID, EventType: d.EventType, URL: d.URL,
			Attempt: d.Attempt, Redelivery: d.Generation, At: d.StartedAt, DurationMS: d.DurationMS,
			StatusCode: d.StatusCode, Error: d.Error, ResponseHead: d.Response}
	}
	writeJSON(w, http.StatusOK, out)
}

func toWireEvent(e store.WebhookEvent) wire.WebhookEvent {
	return wire.WebhookEvent{ID: e.ID, Type: e.Type, URL: e.URL, State: e.State, Attempts: e.Attempts,
		Redeliveries: e.Generation, CreatedAt: e.CreatedAt, NextAttemptAt: e.NextAttemptAt,
		DeliveredAt: e.DeliveredAt, LastError: e.LastError}
}

// redeliver sends an event again with a fresh retry schedule, whatever
// became of it (delivered, failed, still retrying).
func (s *Server) redeliver(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if len(id) > 64 {
		writeError(w, http.StatusNotFound, "no such event", "id")
		return
	}
	e, err := s.cfg.Store.Redeliver(r.Context(), id)
	if err != nil {
		s.writeStoreError(w, r, err)
		return
	}
	if project, err := s.cfg.Store.ResourceProject(r.Context(), store.ResWebhookEvent, id); err == nil {
		s.audit(r, &project, "webhook_event.redeliver", id, nil)
	}
	// If Redis is down, the emitters' sweep hands it over once it is stale.
	if err := webhook.Enqueue(r.Context(), s.cfg.Queue, s.cfg.Webhooks, store.EventTask{ID: e.ID, Generation: e.Generation}); err != nil {
		s.cfg.Logger.Warn("redelivery not enqueued; the emitters will", slog.String("event_id", e.ID), slog.Any("error", err))
	}
	writeJSON(w, http.StatusAccepted, toWireEvent(e))
}

// callbacksFromQuery reads ?callback=URL (repeatable) and
// ?callback_job_events=true of the array and NDJSON batch forms.
func callbacksFromQuery(r *http.Request) ([]wire.Callback, error) {
	q := r.URL.Query()
	jobEvents := false
	if v := q.Get("callback_job_events"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &solver.FieldError{Field: "callback_job_events", Reason: "must be true or false"}
		}
		jobEvents = b
	}
	var out []wire.Callback
	for _, u := range q["callback"] {
		out = append(out, wire.Callback{URL: u, JobEvents: jobEvents})
	}
	return out, nil
}

// writeOptionError answers 400 for a bad option (a *solver.FieldError)
// and maps anything else as a storage error.
func (s *Server) writeOptionError(w http.ResponseWriter, r *http.Request, err error) {
	var fe *solver.FieldError
	if errors.As(err, &fe) {
		writeLevelError(w, err)
		return
	}
	s.writeStoreError(w, r, err)
}
