// Package client is the Go client of puzzled's /v1 HTTP API. puzzlectl and
// the end-to-end tests use it, so the tests exercise what users call.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/puzzled/puzzled/api/wire"
	"github.com/puzzled/puzzled/jobtype"
)

// Client talks to one puzzled server.
type Client struct {
	BaseURL string // e.g. http://127.0.0.1:8080
	Token   string // bearer token, if the server requires one
	HTTP    *http.Client
}

// New returns a client of the server at baseURL.
func New(baseURL string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: http.DefaultClient}
}

// Error is an error answer of the API.
type Error struct {
	Status  int
	Message string `json:"error"`
	Field   string `json:"field"`
	Errors  []struct {
		Index  int    `json:"index"`
		Field  string `json:"field"`
		Reason string `json:"reason"`
	} `json:"errors"`
}

func (e *Error) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message) }

// StatusOf returns the HTTP status of an API error, or 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// do sends a request and decodes a JSON answer into out (if not nil).
func (c *Client) do(ctx context.Context, method, path string, body io.Reader, contentType string, out any) error {
	resp, err := c.send(ctx, method, path, body, contentType)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("client: decode %s %s: %w", method, path, err)
	}
	return nil
}

// send sends a request; an answer of 400 or more becomes an *Error.
func (c *Client) send(ctx context.Context, method, path string, body io.Reader, contentType string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		apiErr := &Error{Status: resp.StatusCode}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(data, apiErr) != nil || apiErr.Message == "" {
			apiErr.Message = strings.TrimSpace(string(data))
		}
		return nil, apiErr
	}
	return resp, nil
}

// CreateJob submits one level.
func (c *Client) CreateJob(ctx context.Context, level json.RawMessage, opts jobtype.Options) (wire.Job, error) {
	body, _ := json.Marshal(struct {
		Level json.RawMessage `json:"level"`
		jobtype.Options
	}{level, opts})
	var j wire.Job
	return j, c.do(ctx, http.MethodPost, "/v1/jobs", bytes.NewReader(body), "application/json", &j)
}

// GetJob returns a job's state, progress and result (without the plan).
func (c *Client) GetJob(ctx context.Context, id int64) (wire.Job, error) {
	var j wire.Job
	return j, c.do(ctx, http.MethodGet, "/v1/jobs/"+strconv.FormatInt(id, 10), nil, "", &j)
}

// Solution is a job's result with its plan.
type Solution = wire.Solution

// GetSolution returns a finished job's result with the plan.
func (c *Client) GetSolution(ctx context.Context, id int64) (Solution, error) {
	var s Solution
	return s, c.do(ctx, http.MethodGet, "/v1/jobs/"+strconv.FormatInt(id, 10)+"/solution", nil, "", &s)
}

// CancelJob cancels a job and returns its state.
func (c *Client) CancelJob(ctx context.Context, id int64) (jobtype.State, error) {
	var out wire.JobCancel
	return out.State, c.do(ctx, http.MethodPost, "/v1/jobs/"+strconv.FormatInt(id, 10)+"/cancel", nil, "", &out)
}

// CreateBatch submits levels as one batch (sent as NDJSON, or as a JSON
// object when it has labels or callbacks) and returns its id.
func (c *Client) CreateBatch(ctx context.Context, levels []json.RawMessage, opts jobtype.Options) (int64, error) {
	if len(opts.Labels) > 0 || len(opts.Callbacks) > 0 {
		// Labels and callbacks travel only in the object form of the body.
		body, _ := json.Marshal(struct {
			Levels []json.RawMessage `json:"levels"`
			jobtype.Options
		}{levels, opts})
		var out struct {
			ID int64 `json:"id"`
		}
		return out.ID, c.do(ctx, http.MethodPost, "/v1/batches", bytes.NewReader(body), "application/json", &out)
	}
	var buf bytes.Buffer
	for _, l := range levels {
		buf.Write(bytes.TrimSpace(l))
		buf.WriteByte('\n')
	}
	q := url.Values{}
	if opts.Priority != "" {
		q.Set("priority", string(opts.Priority))
	}
	if opts.Budget.MaxMS > 0 {
		q.Set("max_ms", strconv.FormatInt(opts.Budget.MaxMS, 10))
	}
	if opts.Budget.MaxNodes > 0 {
		q.Set("max_nodes", strconv.FormatInt(opts.Budget.MaxNodes, 10))
	}
	if opts.Difficulty != nil {
		q.Set("playouts", strconv.Itoa(opts.Difficulty.Playouts))
	}
	if opts.Project != "" {
		q.Set("project", opts.Project)
	}
	path := "/v1/batches"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out struct {
		ID int64 `json:"id"`
	}
	return out.ID, c.do(ctx, http.MethodPost, path, &buf, "application/x-ndjson", &out)
}

// GetBatch returns a batch's progress.
func (c *Client) GetBatch(ctx context.Context, id int64) (wire.Batch, error) {
	var b wire.Batch
	return b, c.do(ctx, http.MethodGet, "/v1/batches/"+strconv.FormatInt(id, 10), nil, "", &b)
}

// BatchResults streams a batch's results in submission order.
func (c *Client) BatchResults(ctx context.Context, id int64, fn func(wire.BatchResult) error) error {
	resp, err := c.send(ctx, http.MethodGet, "/v1/batches/"+strconv.FormatInt(id, 10)+"/results", nil, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var r wire.BatchResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("client: batch results: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("client: batch results: %w", err)
	}
	return nil
}

// CancelBatch cancels every unfinished job of a batch.
func (c *Client) CancelBatch(ctx context.Context, id int64) (int, error) {
	var out wire.BatchCancel
	return out.Canceled, c.do(ctx, http.MethodPost, "/v1/batches/"+strconv.FormatInt(id, 10)+"/cancel", nil, "", &out)
}

// GetLevel returns a stored level and its newest definitive result.
func (c *Client) GetLevel(ctx context.Context, hash string) (wire.Level, error) {
	var l wire.Level
	return l, c.do(ctx, http.MethodGet, "/v1/levels/"+url.PathEscape(hash), nil, "", &l)
}
