package wire

import (
	"encoding/json"
	"time"

	"github.com/puzzled/puzzled/jobtype"
)

// Callback is a callback URL named by a batch or a job ("callbacks": […]).
// JobEvents (batches only) asks for batch.jobs_finished events as the
// batch's jobs finish, besides the final batch.finished.
type Callback = jobtype.Callback

// Event types.
const (
	EventBatchFinished     = "batch.finished"      // every job of the batch is final
	EventBatchCanceled     = "batch.canceled"      // the batch was canceled; its other jobs are final
	EventBatchJobsFinished = "batch.jobs_finished" // some jobs of the batch finished (done or failed)
	EventJobFinished       = "job.finished"        // a job outside a batch is done or failed
	EventJobCanceled       = "job.canceled"        // a job outside a batch was canceled
)

// Event is the body of every webhook request.
type Event struct {
	ID        string          `json:"id"` // the same in every attempt: drop repeats by it
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"` // Batch, JobsFinished or Job, by type
}

// JobsFinished is the data of a batch.jobs_finished event: jobs that
// finished since the previous one, each reported once.
type JobsFinished struct {
	BatchID int64         `json:"batch_id"`
	Jobs    []FinishedJob `json:"jobs"`
}

// FinishedJob is one job of a batch.jobs_finished event.
type FinishedJob struct {
	JobID     int64         `json:"job_id"`
	Seq       int32         `json:"seq"`
	LevelHash string        `json:"level_hash"`
	Kind      string        `json:"kind"`
	State     jobtype.State `json:"state"`
	Verdict   string        `json:"verdict,omitempty"`
	Cached    bool          `json:"cached"`
	Error     *string       `json:"error,omitempty"`
}

// WebhookSecret is a signing secret: POST /v1/webhook-secrets answers with
// Secret, the only time it is shown; lists show the Hint.
type WebhookSecret struct {
	ID        int64      `json:"id"`
	Owner     string     `json:"owner"`
	Secret    string     `json:"secret,omitempty"`
	Hint      string     `json:"hint"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// WebhookSecretList is GET /v1/webhook-secrets.
type WebhookSecretList struct {
	Secrets []WebhookSecret `json:"secrets"`
}

// Deliveries is GET /v1/batches/{id}/deliveries (and /v1/jobs/{id}/…):
// the events of the callbacks, oldest first, and every attempt to deliver
// them, newest first.
type Deliveries struct {
	Events     []WebhookEvent `json:"events"`
	Deliveries []Delivery     `json:"deliveries"`
}

// WebhookEvent is an event in the delivery log.
type WebhookEvent struct {
	ID            string     `json:"id"`
	Type          string     `json:"type"`
	URL           string     `json:"url"`
	State         string     `json:"state"` // pending, delivered or failed
	Attempts      int32      `json:"attempts"`
	Redeliveries  int32      `json:"redeliveries"`
	CreatedAt     time.Time  `json:"created_at"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
	DeliveredAt   *time.Time `json:"delivered_at,omitempty"`
	LastError     *string    `json:"last_error,omitempty"`
}

// Delivery is one attempt to deliver an event.
type Delivery struct {
	ID           int64     `json:"id"`
	EventID      string    `json:"event_id"`
	EventType    string    `json:"event_type"`
	URL          string    `json:"url"`
	Attempt      int32     `json:"attempt"`
	Redelivery   int32     `json:"redelivery"` // 0 for the first series of attempts
	At           time.Time `json:"at"`
	DurationMS   int32     `json:"duration_ms"`
	StatusCode   *int32    `json:"status_code,omitempty"`
	Error        *string   `json:"error,omitempty"` // absent: delivered
	ResponseHead *string   `json:"response,omitempty"`
}
