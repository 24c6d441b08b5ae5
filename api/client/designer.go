package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/puzzled/puzzled/api/wire"
)

// ValidateLevel runs the kind's parser and linter on level (POST
// /v1/levels/validate); a level the parser refuses is an answer with
// Valid false, not an error.
func (c *Client) ValidateLevel(ctx context.Context, level json.RawMessage) (wire.Validation, error) {
	var v wire.Validation
	return v, c.do(ctx, http.MethodPost, "/v1/levels/validate", bytes.NewReader(level), "application/json", &v)
}

// Play asks the server where moves lead from a level's start, which moves
// are legal there and whether the position can still be won (POST
// /v1/play).
func (c *Client) Play(ctx context.Context, req wire.PlayRequest) (wire.Play, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return wire.Play{}, err
	}
	var p wire.Play
	return p, c.do(ctx, http.MethodPost, "/v1/play", bytes.NewReader(body), "application/json", &p)
}
