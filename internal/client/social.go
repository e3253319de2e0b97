package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// ListSocialAccounts lists connected social accounts
// (GET /api/social-accounts?q=mine).
func (c *Client) ListSocialAccounts(ctx context.Context) ([]apitypes.SocialAccount, error) {
	var accts []apitypes.SocialAccount
	err := c.call(ctx, apiCall{
		method: http.MethodGet, path: "/api/social-accounts", query: url.Values{"q": {"mine"}},
		out: &accts, envelope: true,
	})
	if err != nil {
		return nil, err
	}
	return accts, nil
}

// CreateSocialCopyJob starts generating post copy and returns the jobId
// (POST /api/social-copy-jobs). The spec marks subAccountId required in the
// body, and the body always carries it; an account without a sub-account has
// none to name, so it may be "" (sent as "subAccountId":"").
func (c *Client) CreateSocialCopyJob(ctx context.Context, req apitypes.SocialCopyJobRequest) (string, error) {
	for _, f := range []struct{ name, v string }{
		{"projectId", req.ProjectID}, {"clipId", req.ClipID}, {"postAccountId", req.PostAccountID},
	} {
		if err := requireID("social copy job "+f.name, f.v); err != nil {
			return "", err
		}
	}
	var out apitypes.SocialCopyJobCreated
	if err := c.call(ctx, apiCall{method: http.MethodPost, path: "/api/social-copy-jobs", body: req, out: &out, envelope: true}); err != nil {
		return "", err
	}
	if out.JobID == "" {
		return "", errors.New("POST /api/social-copy-jobs: the answer has no jobId")
	}
	return out.JobID, nil
}

// GetSocialCopyJob reads a copy job (GET /api/social-copy-jobs/{id}).
func (c *Client) GetSocialCopyJob(ctx context.Context, id string) (*apitypes.SocialCopyJob, error) {
	if err := requireID("social copy job id", id); err != nil {
		return nil, err
	}
	var job apitypes.SocialCopyJob
	err := c.call(ctx, apiCall{
		method: http.MethodGet, path: "/api/social-copy-jobs/" + url.PathEscape(id), out: &job, envelope: true,
	})
	if err != nil {
		return nil, err
	}
	return &job, nil
}

// validatePost checks the fields a post task and a schedule both require.
func validatePost(what string, req apitypes.PostTaskRequest) error {
	for _, f := range []struct{ name, v string }{
		{"projectId", req.ProjectID}, {"clipId", req.ClipID},
		{"postAccountId", req.PostAccountID}, {"postDetail.title", req.PostDetail.Title},
	} {
		if f.v == "" {
			return fmt.Errorf("%s: %s must not be empty", what, f.name)
		}
	}
	return nil
}

// CreatePostTask publishes a clip now and returns the postId
// (POST /api/post-tasks).
func (c *Client) CreatePostTask(ctx context.Context, req apitypes.PostTaskRequest) (string, error) {
	if err := validatePost("post task", req); err != nil {
		return "", err
	}
	var out apitypes.PostTask
	if err := c.call(ctx, apiCall{method: http.MethodPost, path: "/api/post-tasks", body: req, out: &out, envelope: true}); err != nil {
		return "", err
	}
	if out.PostID == "" {
		return "", errors.New("POST /api/post-tasks: the answer has no postId")
	}
	return out.PostID, nil
}

// CreatePublishSchedule schedules a clip for later and returns the scheduleId
// (POST /api/publish-schedules).
func (c *Client) CreatePublishSchedule(ctx context.Context, req apitypes.PublishScheduleRequest) (string, error) {
	if err := validatePost("publish schedule", req.PostTaskRequest); err != nil {
		return "", err
	}
	if req.PublishAt == "" {
		return "", errors.New("publish schedule: publishAt must not be empty")
	}
	var out apitypes.PublishSchedule
	if err := c.call(ctx, apiCall{method: http.MethodPost, path: "/api/publish-schedules", body: req, out: &out, envelope: true}); err != nil {
		return "", err
	}
	if out.ScheduleID == "" {
		return "", errors.New("POST /api/publish-schedules: the answer has no scheduleId")
	}
	return out.ScheduleID, nil
}

// DeletePublishSchedule cancels a scheduled post
// (DELETE /api/publish-schedules/{id}).
func (c *Client) DeletePublishSchedule(ctx context.Context, id string) error {
	if err := requireID("schedule id", id); err != nil {
		return err
	}
	err := c.call(ctx, apiCall{method: http.MethodDelete, path: "/api/publish-schedules/" + url.PathEscape(id)})
	return err
}
