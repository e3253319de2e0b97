package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// CreateCensorJob starts censoring a clip (POST /api/censor-jobs).
func (c *Client) CreateCensorJob(ctx context.Context, req apitypes.CensorJobRequest) (*apitypes.CensorJob, error) {
	if err := requireID("censor job projectId", req.ProjectID); err != nil {
		return nil, err
	}
	if err := requireID("censor job clipId", req.ClipID); err != nil {
		return nil, err
	}
	var job apitypes.CensorJob
	if err := c.call(ctx, apiCall{method: http.MethodPost, path: "/api/censor-jobs", body: req, out: &job}); err != nil {
		return nil, err
	}
	return &job, nil
}

// GetCensorJob reads a censor job's status (GET /api/censor-jobs/{id}).
func (c *Client) GetCensorJob(ctx context.Context, id string) (*apitypes.CensorJobStatus, error) {
	if err := requireID("censor job id", id); err != nil {
		return nil, err
	}
	var st apitypes.CensorJobStatus
	if err := c.call(ctx, apiCall{method: http.MethodGet, path: "/api/censor-jobs/" + url.PathEscape(id), out: &st}); err != nil {
		return nil, err
	}
	return &st, nil
}
