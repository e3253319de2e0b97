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
	// The job rewrites the clip: no listing of the project is kept from
	// now until the job is seen to end.
	c.clips.censorStarting(req.ProjectID)
	var job apitypes.CensorJob
	if err := c.call(ctx, apiCall{method: http.MethodPost, path: "/api/censor-jobs", body: req, out: &job}); err != nil {
		c.clips.censorFailed(req.ProjectID)
		return nil, err
	}
	c.clips.censorCreated(req.ProjectID, job.JobID)
	return &job, nil
}

// GetCensorJob reads the status of censor job id (GET
// /api/censor-jobs/{id}) of project projectID, which the status does not
// name: the caller knows it from the job's content id ("" if it does not),
// and the clip listings cached for the run learn from the status (clipcache.go).
func (c *Client) GetCensorJob(ctx context.Context, id, projectID string) (*apitypes.CensorJobStatus, error) {
	if err := requireID("censor job id", id); err != nil {
		return nil, err
	}
	var st apitypes.CensorJobStatus
	if err := c.call(ctx, apiCall{method: http.MethodGet, path: "/api/censor-jobs/" + url.PathEscape(id), out: &st}); err != nil {
		return nil, err
	}
	c.clips.censorStatus(id, projectID, st.Status)
	return &st, nil
}
