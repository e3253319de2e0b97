package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// CreateProject submits a project (POST /api/clip-projects). It first waits
// for a free slot under the organization's concurrent-project cap in this
// process (see slotPool), so the service does not refuse it; the slot is
// freed when this process sees the project end, or at once when the create
// fails. A 429 concurrent refusal is still retried until the service accepts
// it or ctx ends.
func (c *Client) CreateProject(ctx context.Context, req apitypes.CreateProjectRequest) (*apitypes.Project, error) {
	if req.VideoURL == "" {
		return nil, errors.New("create project: videoUrl must not be empty")
	}
	sl, err := c.acquireSlot(ctx)
	if err != nil {
		return nil, fmt.Errorf("create project: waiting for one of the %s: %w", c.slotsDescription(), err)
	}
	var p apitypes.Project
	if err := c.call(ctx, apiCall{method: http.MethodPost, path: "/api/clip-projects", body: req, out: &p}); err != nil {
		// Refused, or the answer was lost: either way this process has no
		// project to watch, and the 429 rule covers one the service did make.
		sl.free()
		return nil, err
	}
	sl.hold(p.ID)
	c.observe(&p)
	return &p, nil
}

// GetProject reads a project (GET /api/clip-projects/{id}).
func (c *Client) GetProject(ctx context.Context, id string) (*apitypes.Project, error) {
	if err := requireID("project id", id); err != nil {
		return nil, err
	}
	var p apitypes.Project
	if err := c.call(ctx, apiCall{method: http.MethodGet, path: "/api/clip-projects/" + url.PathEscape(id), out: &p}); err != nil {
		if IsNotFound(err) {
			c.slots.release(id) // gone: it holds no slot of the cap
		}
		return nil, err
	}
	c.observe(&p)
	return &p, nil
}

// observe learns from any answer about a project: one that ended frees its
// concurrent slot, a COMPLETE one makes its clip listing cacheable, and its
// stage and timestamps teach the waits how long projects take.
func (c *Client) observe(p *apitypes.Project) {
	if freesSlot(p) {
		c.slots.release(p.ID)
	} else {
		c.slots.inFlight(p.ID)
	}
	c.clips.saw(p)
	c.pace.observe(p)
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
	c.clips.drop(id) // the service may hand out addresses of another lifetime now
	c.observe(&p)
	return &p, nil
}
