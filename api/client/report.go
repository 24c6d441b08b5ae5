package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/puzzled/puzzled/api/wire"
)

// GetReport returns a batch's report: counts by verdict and kind, the
// unsolvable levels with their proofs, unknown ones with their best
// partial result, failures, percentiles and the slowest levels.
func (c *Client) GetReport(ctx context.Context, id int64) (wire.Report, error) {
	var r wire.Report
	return r, c.do(ctx, http.MethodGet, fmt.Sprintf("/v1/batches/%d/report", id), nil, "", &r)
}

// Stats returns the report's figures over every job created in [since,
// until), per kind (GET /v1/stats).
func (c *Client) Stats(ctx context.Context, since, until time.Time) (wire.Stats, error) {
	var s wire.Stats
	q := url.Values{"since": {since.UTC().Format(time.RFC3339Nano)}, "until": {until.UTC().Format(time.RFC3339Nano)}}
	return s, c.do(ctx, http.MethodGet, "/v1/stats?"+q.Encode(), nil, "", &s)
}
