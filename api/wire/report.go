package wire

import (
	"encoding/json"
	"time"
)

// Figures summarise a set of jobs (one batch, or a time window) overall
// and per kind.
type Figures struct {
	Jobs     int                     `json:"jobs"`
	States   map[string]int          `json:"states"`
	Verdicts map[string]int          `json:"verdicts"`
	Cached   int                     `json:"cached"`
	SolveMS  Percentiles             `json:"solve_ms"` // of jobs that were solved, not cached
	Nodes    Percentiles             `json:"nodes"`
	Kinds    map[string]*KindFigures `json:"kinds,omitempty"`
}

// KindFigures are the figures of one kind.
type KindFigures struct {
	Jobs     int            `json:"jobs"`
	States   map[string]int `json:"states"`
	Verdicts map[string]int `json:"verdicts"`
	Cached   int            `json:"cached"`
	SolveMS  Percentiles    `json:"solve_ms"`
	Nodes    Percentiles    `json:"nodes"`
}

// Percentiles of a distribution; P99 is left out for nodes.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99,omitempty"`
}

// ReportLevel is one level singled out by a report.
type ReportLevel struct {
	Seq       *int32          `json:"seq,omitempty"`
	JobID     int64           `json:"job_id"`
	LevelHash string          `json:"level_hash"`
	Kind      string          `json:"kind"`
	Proof     string          `json:"proof,omitempty"`
	Value     *int64          `json:"value,omitempty"`
	Details   json.RawMessage `json:"details,omitempty"`
	Plan      json.RawMessage `json:"best_partial_plan,omitempty"`
	Error     string          `json:"error,omitempty"`
	ElapsedMS float64         `json:"elapsed_ms"`
	Nodes     float64         `json:"nodes"`
	Score     *int            `json:"difficulty_score,omitempty"`
}

// Report is GET /v1/batches/{id}/report.
type Report struct {
	BatchID int64 `json:"batch_id"`
	Figures
	Unsolvable []ReportLevel `json:"unsolvable"`
	Unknown    []ReportLevel `json:"unknown"`
	Failed     []ReportLevel `json:"failed"`
	Slowest    []ReportLevel `json:"slowest"`
	Difficulty Difficulty    `json:"difficulty"`
	// ListLimit caps each list; Truncated says a list was cut.
	ListLimit int  `json:"list_limit"`
	Truncated bool `json:"truncated"`
}

// Stats is GET /v1/stats: figures of the jobs created in [Since, Until).
type Stats struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	Figures
}

// Difficulty sums up the difficulty scores of a batch's rated levels
// (docs/difficulty.md).
type Difficulty struct {
	// Rated is the number of levels with a score.
	Rated int `json:"rated"`
	// Histogram[s-1] is the number of levels with score s (1..10).
	Histogram [10]int `json:"histogram"`
	// Hardest lists up to 10 levels of the highest score, the one the
	// random player wins least first.
	Hardest []ReportLevel `json:"hardest"`
}
