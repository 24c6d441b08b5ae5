package wire

import (
	"encoding/json"
	"time"

	"github.com/puzzled/puzzled/jobtype"
)

// Batch is GET /v1/batches/{id}: a batch with its progress.
type Batch struct {
	ID         int64            `json:"id"`
	Project    string           `json:"project,omitempty"` // its project's name
	Total      int              `json:"total"`
	Priority   jobtype.Priority `json:"priority"`
	Labels     json.RawMessage  `json:"labels,omitempty"`
	CreatedAt  time.Time        `json:"created_at"`
	CanceledAt *time.Time       `json:"canceled_at,omitempty"`
	States     map[string]int   `json:"states"`
	Verdicts   map[string]int   `json:"verdicts"`
	Cached     int              `json:"cached"`
	Done       float64          `json:"done"` // fraction of jobs in a final state
	FinishedAt *time.Time       `json:"finished_at,omitempty"`
	Kinds      map[string]int   `json:"kinds"`
}

// BatchResult is one line of GET /v1/batches/{id}/results (NDJSON).
type BatchResult struct {
	Seq       int32         `json:"seq"`
	JobID     int64         `json:"job_id"`
	LevelHash string        `json:"level_hash"`
	Kind      string        `json:"kind"`
	State     jobtype.State `json:"state"`
	Cached    bool          `json:"cached"`
	Error     *string       `json:"error,omitempty"`
	Result    *Result       `json:"result,omitempty"`
}
