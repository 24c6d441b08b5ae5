package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/puzzled/puzzled/api/wire"
)

// Generate starts a generation: levels to a target difficulty made from a
// template (POST /v1/generate).
func (c *Client) Generate(ctx context.Context, req wire.GenerateRequest) (wire.Generation, error) {
	return c.postGeneration(ctx, "/v1/generate", req)
}

// Repair starts the repair of an unsolvable job's level (POST
// /v1/jobs/{id}/repair).
func (c *Client) Repair(ctx context.Context, jobID int64, req wire.RepairRequest) (wire.Generation, error) {
	return c.postGeneration(ctx, "/v1/jobs/"+strconv.FormatInt(jobID, 10)+"/repair", req)
}

func (c *Client) postGeneration(ctx context.Context, path string, req any) (wire.Generation, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return wire.Generation{}, err
	}
	var g wire.Generation
	return g, c.do(ctx, http.MethodPost, path, bytes.NewReader(body), "application/json", &g)
}

// GetGeneration returns a generation or repair with its progress.
func (c *Client) GetGeneration(ctx context.Context, id int64) (wire.Generation, error) {
	var g wire.Generation
	return g, c.do(ctx, http.MethodGet, "/v1/generations/"+strconv.FormatInt(id, 10), nil, "", &g)
}

// CancelGeneration stops a generation or repair and cancels its batch.
func (c *Client) CancelGeneration(ctx context.Context, id int64) (wire.Generation, error) {
	var g wire.Generation
	return g, c.do(ctx, http.MethodPost, "/v1/generations/"+strconv.FormatInt(id, 10)+"/cancel", nil, "", &g)
}
