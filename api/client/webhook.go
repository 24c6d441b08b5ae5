package client

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/puzzled/puzzled/api/wire"
)

// Webhook signatures (docs/webhooks.md). Every event puzzled POSTs carries
//
//	puzzled-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
//
// with one v1 per active secret of the owner (two while a secret is being
// replaced). A receiver checks one of them with its secret and refuses a t
// too far from its clock, which stops a captured request from being
// replayed later; the event id in the body tells repeats apart.

// SignatureHeader is the header that carries the signature.
const SignatureHeader = "puzzled-signature"

// Headers that name the event, besides its body's "id" and "type".
const (
	EventIDHeader   = "puzzled-event-id"
	EventTypeHeader = "puzzled-event-type"
)

// SignWebhook returns the signature header's value for body sent at t,
// with one v1 per secret.
func SignWebhook(secrets []string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	parts := []string{"t=" + ts}
	for _, s := range secrets {
		parts = append(parts, "v1="+hex.EncodeToString(webhookMAC(s, ts, body)))
	}
	return strings.Join(parts, ",")
}

func webhookMAC(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors of VerifyWebhook.
var (
	ErrNoSignature  = errors.New("webhook: no valid signature")
	ErrStaleWebhook = errors.New("webhook: timestamp outside the tolerance")
)

// VerifyWebhook checks the signature header of a received body with secret:
// one v1 must match, and its t be within tolerance of now (0: 5 minutes).
func VerifyWebhook(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = 5 * time.Minute
	}
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if sig, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: no timestamp", ErrNoSignature)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: signed %s ago", ErrStaleWebhook, d.Round(time.Second))
	}
	want := webhookMAC(secret, ts, body)
	for _, sig := range sigs {
		if hmac.Equal(sig, want) {
			return nil
		}
	}
	return ErrNoSignature
}

// CreateWebhookSecret makes a new signing secret for the caller's token.
// Its Secret is shown this once.
func (c *Client) CreateWebhookSecret(ctx context.Context) (wire.WebhookSecret, error) {
	var s wire.WebhookSecret
	return s, c.do(ctx, http.MethodPost, "/v1/webhook-secrets", nil, "", &s)
}

// WebhookSecrets lists the caller's active secrets, each shown by its hint.
func (c *Client) WebhookSecrets(ctx context.Context) ([]wire.WebhookSecret, error) {
	var out wire.WebhookSecretList
	return out.Secrets, c.do(ctx, http.MethodGet, "/v1/webhook-secrets", nil, "", &out)
}

// RevokeWebhookSecret revokes one of the caller's secrets.
func (c *Client) RevokeWebhookSecret(ctx context.Context, id int64) (wire.WebhookSecret, error) {
	var s wire.WebhookSecret
	return s, c.do(ctx, http.MethodDelete, "/v1/webhook-secrets/"+strconv.FormatInt(id, 10), nil, "", &s)
}

// BatchDeliveries returns the delivery log of a batch's callbacks.
func (c *Client) BatchDeliveries(ctx context.Context, id int64) (wire.Deliveries, error) {
	var d wire.Deliveries
	return d, c.do(ctx, http.MethodGet, "/v1/batches/"+strconv.FormatInt(id, 10)+"/deliveries", nil, "", &d)
}

// JobDeliveries returns the delivery log of a job's callbacks.
func (c *Client) JobDeliveries(ctx context.Context, id int64) (wire.Deliveries, error) {
	var d wire.Deliveries
	return d, c.do(ctx, http.MethodGet, "/v1/jobs/"+strconv.FormatInt(id, 10)+"/deliveries", nil, "", &d)
}

// Redeliver sends an event again, with a fresh retry schedule.
func (c *Client) Redeliver(ctx context.Context, eventID string) (wire.WebhookEvent, error) {
	var e wire.WebhookEvent
	return e, c.do(ctx, http.MethodPost, "/v1/webhook-events/"+url.PathEscape(eventID)+"/redeliver", nil, "", &e)
}
