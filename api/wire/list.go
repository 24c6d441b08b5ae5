package wire

import (
	"encoding/json"
	"time"

	"github.com/puzzled/puzzled/jobtype"
)

// MaxListLimit is the most items one page of a list holds.
const MaxListLimit = 1000

// JobListItem is one row of GET /v1/jobs: the job without progress, with
// its result's headline (no plan, proof or details).
type JobListItem struct {
	ID         int64            `json:"id"`
	BatchID    *int64           `json:"batch_id,omitempty"`
	Seq        *int32           `json:"seq,omitempty"`
	LevelHash  string           `json:"level_hash"`
	Kind       string           `json:"kind"`
	State      jobtype.State    `json:"state"`
	Priority   jobtype.Priority `json:"priority"`
	Labels     json.RawMessage  `json:"labels,omitempty"`
	Cached     bool             `json:"cached"`
	Verdict    *string          `json:"verdict,omitempty"`
	Value      *int64           `json:"value,omitempty"`
	Optimal    *bool            `json:"optimal,omitempty"`
	Error      *string          `json:"error,omitempty"`
	CreatedAt  time.Time        `json:"created_at"`
	FinishedAt *time.Time       `json:"finished_at,omitempty"`
}

// BatchListItem is one row of GET /v1/batches (no progress counts: those
// are per batch, GET /v1/batches/{id}).
type BatchListItem struct {
	ID         int64            `json:"id"`
	Total      int              `json:"total"`
	Priority   jobtype.Priority `json:"priority"`
	Labels     json.RawMessage  `json:"labels,omitempty"`
	CreatedAt  time.Time        `json:"created_at"`
	CanceledAt *time.Time       `json:"canceled_at,omitempty"`
}

// LevelListItem is one row of GET /v1/levels: a level (without its body)
// and its newest definitive result's headline.
type LevelListItem struct {
	Hash          string     `json:"hash"`
	Kind          string     `json:"kind"`
	CreatedAt     time.Time  `json:"created_at"`
	Verdict       *string    `json:"verdict,omitempty"`
	Value         *int64     `json:"value,omitempty"`
	Optimal       *bool      `json:"optimal,omitempty"`
	SolverVersion *string    `json:"solver_version,omitempty"`
	JobID         *int64     `json:"job_id,omitempty"` // of that result
	SolvedAt      *time.Time `json:"solved_at,omitempty"`
}

// LevelResultItem is one result a level has had (GET
// /v1/levels/{hash}/results).
type LevelResultItem struct {
	JobID int64 `json:"job_id"`
	Result
}
