package wire

import (
	"encoding/json"
	"time"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// Job is a job with its result and progress: POST /v1/jobs and
// GET /v1/jobs/{id}.
type Job struct {
	ID        int64            `json:"id"`
	Project   string           `json:"project,omitempty"` // its project's name
	BatchID   *int64           `json:"batch_id,omitempty"`
	Seq       *int32           `json:"seq,omitempty"`
	LevelHash string           `json:"level_hash"`
	Kind      string           `json:"kind"`
	State     jobtype.State    `json:"state"`
	Priority  jobtype.Priority `json:"priority"`
	Budget    solver.Budget    `json:"budget"`
	// Difficulty is the job's difficulty option; nil: the worker's
	// default (1,000 playouts). A bulk job that asked nothing shows
	// {"playouts": 0}.
	Difficulty  *jobtype.Difficulty `json:"difficulty,omitempty"`
	Labels      json.RawMessage     `json:"labels,omitempty"`
	Attempts    int32               `json:"attempts"`
	MaxAttempts int32               `json:"max_attempts"`
	Cached      bool                `json:"cached"`
	Error       *string             `json:"error,omitempty"`
	CreatedAt   time.Time           `json:"created_at"`
	StartedAt   *time.Time          `json:"started_at,omitempty"`
	FinishedAt  *time.Time          `json:"finished_at,omitempty"`
	Progress    *Progress           `json:"progress,omitempty"`
	Result      *Result             `json:"result,omitempty"`
}

// Progress is what the last checkpoint of a running job says.
type Progress struct {
	Nodes          int64     `json:"nodes"`
	Checkpoints    int32     `json:"checkpoints"`
	LastCheckpoint time.Time `json:"last_checkpoint"`
	// Best is the search's best line so far (sheep, columns, zuma with
	// ammo): the plan an unknown result would end with if it stopped at
	// that checkpoint.
	Best *solver.Best `json:"best,omitempty"`
}

// Result is a stored solver result: the solver's answer and which solver
// version gave it when.
type Result struct {
	solver.Result
	SolverVersion string    `json:"solver_version"`
	CreatedAt     time.Time `json:"created_at"`
}

// Solution is GET /v1/jobs/{id}/solution: a finished job's result with
// its plan.
type Solution struct {
	JobID     int64  `json:"job_id"`
	LevelHash string `json:"level_hash"`
	Kind      string `json:"kind"`
	Cached    bool   `json:"cached"`
	*Result
}

// JobCancel is POST /v1/jobs/{id}/cancel: the job's state afterwards.
type JobCancel struct {
	ID    int64         `json:"id"`
	State jobtype.State `json:"state"`
}

// Level is GET /v1/levels/{hash}: a stored level in canonical JSON and
// its newest definitive result, null when it has none.
type Level struct {
	Hash   string          `json:"hash"`
	Kind   string          `json:"kind"`
	Body   json.RawMessage `json:"level"`
	Result *Result         `json:"result"`
}

// BatchCancel is POST /v1/batches/{id}/cancel: how many jobs it canceled.
type BatchCancel struct {
	ID       int64 `json:"id"`
	Canceled int   `json:"canceled"`
}
