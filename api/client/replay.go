package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/puzzled/puzzled/solver"
)

// Replay is GET /v1/jobs/{id}/replay: a finished job's level and every
// state of its stored plan, from the kind's simulator.
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
}

// GetReplay returns the states of a finished job's plan.
func (c *Client) GetReplay(ctx context.Context, id int64) (Replay, error) {
	var r Replay
	return r, c.do(ctx, http.MethodGet, fmt.Sprintf("/v1/jobs/%d/replay", id), nil, "", &r)
}
