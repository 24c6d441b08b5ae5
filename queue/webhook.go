package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeWebhook is the asynq task type of a webhook delivery: one event of
// one callback URL (internal/webhook sends it).
const TypeWebhook = "puzzled:webhook"

// Webhooks is the queue of webhook deliveries. It is served by an asynq
// server of its own (internal/webhook), never by the solve servers (it is
// not in Queues), so that callbacks that fail or hang take no solve slot.
const Webhooks = "webhooks"

// WebhookPayload is the body of a webhook delivery task: the event and the
// generation (redelivery) it belongs to.
type WebhookPayload struct {
	EventID    string `json:"event_id"`
	Generation int32  `json:"generation"`
}

// TaskID is the task's id: one task per generation of an event, so that
// enqueueing it again while it lives (waiting for a retry, say) is a
// no-op, and a redelivery is a new task.
func (p WebhookPayload) TaskID() string {
	return "webhook:" + p.EventID + ":" + strconv.FormatInt(int64(p.Generation), 10)
}

// WebhookPayloadOf decodes a webhook task's payload.
func WebhookPayloadOf(t *asynq.Task) (WebhookPayload, error) {
	var p WebhookPayload
	err := json.Unmarshal(t.Payload(), &p)
	if err == nil && (p.EventID == "" || p.Generation < 0) {
		err = errors.New("want an event_id and a generation")
	}
	if err != nil {
		return WebhookPayload{}, fmt.Errorf("queue: bad webhook payload %q: %w", t.Payload(), errors.Join(err, asynq.SkipRetry))
	}
	return p, nil
}

// EnqueueWebhook hands a delivery to asynq with retries attempts after the
// first, each at most timeout long. A task that is already live is left
// as it is.
func (c *Client) EnqueueWebhook(ctx context.Context, p WebhookPayload, retries int, timeout time.Duration) error {
	payload, _ := json.Marshal(p)
	_, err := c.client.EnqueueContext(ctx, asynq.NewTask(TypeWebhook, payload),
		asynq.Queue(Webhooks), asynq.TaskID(p.TaskID()), asynq.MaxRetry(retries), asynq.Timeout(timeout))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("queue: enqueue %s: %w", p.TaskID(), err)
	}
	return nil
}
