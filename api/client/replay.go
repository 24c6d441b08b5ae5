package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/puzzled/puzzled/api/wire"
)

// GetReplay returns the states of a finished job's plan.
func (c *Client) GetReplay(ctx context.Context, id int64) (wire.Replay, error) {
	var r wire.Replay
	return r, c.do(ctx, http.MethodGet, fmt.Sprintf("/v1/jobs/%d/replay", id), nil, "", &r)
}
