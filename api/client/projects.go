package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/puzzled/puzzled/api/wire"
)

// Projects lists the projects the token reads, by id.
func (c *Client) Projects(ctx context.Context) ([]wire.Project, error) {
	var out wire.ProjectList
	return out.Items, c.do(ctx, http.MethodGet, "/v1/projects", nil, "", &out)
}

// UpdateProject sets a project's share of bulk work (an operator's token
// only); a nil field of share keeps its value.
func (c *Client) UpdateProject(ctx context.Context, name string, share wire.ProjectShare) (wire.Project, error) {
	body, _ := json.Marshal(share)
	var p wire.Project
	return p, c.do(ctx, http.MethodPatch, "/v1/projects/"+url.PathEscape(name), bytes.NewReader(body), "application/json", &p)
}

// CreateProject makes a project (an operator's token only).
func (c *Client) CreateProject(ctx context.Context, req wire.ProjectRequest) (wire.Project, error) {
	body, _ := json.Marshal(req)
	var p wire.Project
	return p, c.do(ctx, http.MethodPost, "/v1/projects", bytes.NewReader(body), "application/json", &p)
}
