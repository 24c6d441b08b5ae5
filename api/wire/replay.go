package wire

import (
	"encoding/json"

	"github.com/puzzled/puzzled/solver"
)

// Replay is GET /v1/jobs/{id}/replay: a finished job's level and every
// state of its stored plan, from the kind's simulator, so that a page
// draws exactly what the simulator computes.
type Replay struct {
	JobID     int64           `json:"job_id"`
	Kind      string          `json:"kind"`
	LevelHash string          `json:"level_hash"`
	Verdict   solver.Verdict  `json:"verdict"`
	Value     *int64          `json:"value,omitempty"`
	Optimal   bool            `json:"optimal"`
	Proof     string          `json:"proof,omitempty"`
	Level     json.RawMessage `json:"level"`
	States    []solver.State  `json:"states"`
	// Explanation says why a result is not solved, in words and with the
	// state to show (docs/web.md); absent for solved results.
	Explanation *solver.Explanation `json:"explanation,omitempty"`
}
