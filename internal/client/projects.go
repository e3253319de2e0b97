package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// CreateProject submits a project (POST /api/clip-projects). A 429 concurrent
// refusal is retried until the service accepts it or ctx ends.
func (c *Client) CreateProject(ctx context.Context, req apitypes.CreateProjectRequest) (*apitypes.Project, error) {
	if req.VideoURL == "" {
		return nil, errors.New("create project: videoUrl must not be empty")
	}
	var p apitypes.Project
	if err := c.call(ctx, apiCall{method: http.MethodPost, path: "/api/clip-projects", body: req, out: &p}); err != nil {
		return nil, err
	}
	return &p, nil
}

// GetProject reads a project (GET /api/clip-projects/{id}).
func (c *Client) GetProject(ctx context.Context, id string) (*apitypes.Project, error) {
	if err := requireID("project id", id); err != nil {
		return nil, err
	}
	var p apitypes.Project
	if err := c.call(ctx, apiCall{method: http.MethodGet, path: "/api/clip-projects/" + url.PathEscape(id), out: &p}); err != nil {
		return nil, err
	}
	return &p, nil
}

// UpdateProjectVisibility sets a project's visibility
// (POST /api/clip-projects/{id}/update-visibility).
func (c *Client) UpdateProjectVisibility(ctx context.Context, id, visibility string) (*apitypes.Project, error) {
	if err := requireID("project id", id); err != nil {
		return nil, err
	}
	if err := requireID("visibility", visibility); err != nil {
		return nil, err
	}
	var p apitypes.Project
	err := c.call(ctx, apiCall{
		method: http.MethodPost,
		path:   "/api/clip-projects/" + url.PathEscape(id) + "/update-visibility",
		body:   apitypes.UpdateVisibilityRequest{Visibility: visibility},
		out:    &p,
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}
