package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/puzzled/puzzled/api/wire"
)

// GetReport returns a batch's report: counts by verdict and kind, the
// unsolvable levels with their proofs, unknown ones with their best
// partial result, failures, percentiles and the slowest levels.
func (c *Client) GetReport(ctx context.Context, id int64) (wire.Report, error) {
	var r wire.Report
	return r, c.do(ctx, http.MethodGet, fmt.Sprintf("/v1/batches/%d/report", id), nil, "", &r)
}
