package wire

import (
	"encoding/json"
	"time"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// GenerateRequest is the body of POST /v1/generate: make Count solvable
// levels whose difficulty score lies in Score from a template level
// (docs/generate.md).
type GenerateRequest struct {
	Template      json.RawMessage     `json:"template"`
	Count         int                 `json:"count"`
	Score         ScoreBand           `json:"score"`
	Seed          uint64              `json:"seed,omitempty"`
	MaxCandidates int                 `json:"max_candidates,omitempty"`
	Budget        solver.Budget       `json:"budget,omitzero"`
	Difficulty    *jobtype.Difficulty `json:"difficulty,omitempty"`
	Labels        json.RawMessage     `json:"labels,omitempty"`
	// Project names the project of the generation and its batch
	// (docs/service.md, "Projects and tokens").
	Project string `json:"project,omitempty"`
}

// ScoreBand is an inclusive range of difficulty scores.
type ScoreBand struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// RepairRequest is the optional body of POST /v1/jobs/{id}/repair.
type RepairRequest struct {
	Count         int             `json:"count,omitempty"`
	MaxEdits      int             `json:"max_edits,omitempty"`
	MaxCandidates int             `json:"max_candidates,omitempty"`
	Budget        solver.Budget   `json:"budget,omitzero"`
	Labels        json.RawMessage `json:"labels,omitempty"`
}

// Generation is a generation (POST /v1/generate) or a repair (POST
// /v1/jobs/{id}/repair) with its progress: the levels it keeps are the
// jobs of its batch.
type Generation struct {
	ID            int64          `json:"id"`
	BatchID       int64          `json:"batch_id"`
	Mode          string         `json:"mode"` // generate | repair
	Kind          string         `json:"kind"`
	Template      string         `json:"template"` // level hash of the template, or of the level repaired
	JobID         *int64         `json:"job_id,omitempty"`
	State         string         `json:"state"` // running | done | exhausted | canceled | failed
	Count         int            `json:"count"`
	Score         *ScoreBand     `json:"score,omitempty"`
	Seed          uint64         `json:"seed"`
	MaxCandidates int            `json:"max_candidates,omitempty"`
	MaxEdits      int            `json:"max_edits,omitempty"`
	Budget        solver.Budget  `json:"budget"`
	Playouts      int            `json:"playouts"`
	Tried         int            `json:"tried"`
	Kept          int            `json:"kept"`
	Rejected      map[string]int `json:"rejected"`
	Note          string         `json:"note,omitempty"`
	CreatedAt     time.Time      `json:"created_at"`
	FinishedAt    *time.Time     `json:"finished_at,omitempty"`
}
