package client

import (
	"context"
	"encoding/json"

	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/puzzled/puzzled/api/wire"
)

// Filter holds the query parameters of a list (GET /v1/jobs, /v1/batches,
// /v1/levels): batch, kind, state, verdict, level, since, until, limit, and
// label (repeatable, "key:value"). See the OpenAPI document for which list
// takes which.
type Filter = url.Values

// page is one page of a list.
type page[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor"`
}

// listAll calls fn for every item of the list at path, following the
// cursors page after page (one page in memory at a time).
func listAll[T any](ctx context.Context, c *Client, path string, f Filter, fn func(T) error) error {
	q := url.Values{}
	for k, v := range f {
		q[k] = v
	}
	q.Del("cursor")
	for {
		var p page[T]
		if err := c.do(ctx, http.MethodGet, path+"?"+q.Encode(), nil, "", &p); err != nil {
			return err
		}
		for _, it := range p.Items {
			if err := fn(it); err != nil {
				return err
			}
		}
		if p.NextCursor == "" {
			return nil
		}
		q.Set("cursor", p.NextCursor)
	}
}

// ListJobs calls fn for every job the filter selects, newest first.
func (c *Client) ListJobs(ctx context.Context, f Filter, fn func(wire.JobListItem) error) error {
	return listAll(ctx, c, "/v1/jobs", f, fn)
}

// ListBatches calls fn for every batch the filter selects, newest first.
func (c *Client) ListBatches(ctx context.Context, f Filter, fn func(wire.BatchListItem) error) error {
	return listAll(ctx, c, "/v1/batches", f, fn)
}

// ListLevels calls fn for every level the filter selects, newest first,
// with its newest definitive result.
func (c *Client) ListLevels(ctx context.Context, f Filter, fn func(wire.LevelListItem) error) error {
	return listAll(ctx, c, "/v1/levels", f, fn)
}

// LevelResults calls fn for every result a level has had, newest first.
func (c *Client) LevelResults(ctx context.Context, hash string, fn func(wire.LevelResultItem) error) error {
	return listAll(ctx, c, "/v1/levels/"+url.PathEscape(hash)+"/results", nil, fn)
}

// ListPage returns one page of the list at path ("/v1/jobs", …) as raw
// items, and the cursor of the next page ("" on the last).
func (c *Client) ListPage(ctx context.Context, path string, f Filter) ([]json.RawMessage, string, error) {
	var p page[json.RawMessage]
	err := c.do(ctx, http.MethodGet, path+"?"+f.Encode(), nil, "", &p)
	return p.Items, p.NextCursor, err
}

// MaxWait is the longest wait one long-poll may ask for.
const MaxWait = 60 * time.Second

func waitParam(d time.Duration) string {
	return "?wait=" + strconv.FormatInt(min(d, MaxWait).Milliseconds(), 10) + "ms"
}

// WaitJob long-polls a job: it answers as soon as the job is final, or
// after wait (at most MaxWait) with the job as it is then.
func (c *Client) WaitJob(ctx context.Context, id int64, wait time.Duration) (wire.Job, error) {
	var j wire.Job
	return j, c.do(ctx, http.MethodGet, "/v1/jobs/"+strconv.FormatInt(id, 10)+waitParam(wait), nil, "", &j)
}

// WaitBatch long-polls a batch: it answers as soon as every job of the
// batch is final, or after wait (at most MaxWait) with its progress.
func (c *Client) WaitBatch(ctx context.Context, id int64, wait time.Duration) (wire.Batch, error) {
	var b wire.Batch
	return b, c.do(ctx, http.MethodGet, "/v1/batches/"+strconv.FormatInt(id, 10)+waitParam(wait), nil, "", &b)
}
