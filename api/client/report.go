package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/puzzled/puzzled/store"
)

// GetReport returns a batch's report: counts by verdict and kind, the
// unsolvable levels with their proofs, unknown ones with their best
// partial result, failures, percentiles and the slowest levels.
func (c *Client) GetReport(ctx context.Context, id int64) (store.Report, error) {
	var r store.Report
	return r, c.do(ctx, http.MethodGet, fmt.Sprintf("/v1/batches/%d/report", id), nil, "", &r)
}

// GetStats returns the figures of the jobs created in [since, until);
// zero times mean all time.
func (c *Client) GetStats(ctx context.Context, since, until time.Time) (store.Stats, error) {
	q := url.Values{}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339))
	}
	if !until.IsZero() {
		q.Set("until", until.UTC().Format(time.RFC3339))
	}
	var s store.Stats
	return s, c.do(ctx, http.MethodGet, "/v1/stats?"+q.Encode(), nil, "", &s)
}
