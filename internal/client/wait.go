package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// WaitOptions tunes WaitForProject.
type WaitOptions struct {
	PollInterval    time.Duration             // first interval, default 5s
	MaxPollInterval time.Duration             // backoff cap, default 30s
	OnStageChange   func(p *apitypes.Project) // called when stage differs from the last seen one
	// Known is the project as the caller last saw it (the create answer, say):
	// a wait that ends before its first poll still reports that stage.
	Known *apitypes.Project
}

// WaitForProject polls until COMPLETE (returns the project), STALLED (returns the project and a
// *StalledError), or ctx is done (returns the last project seen and an error wrapping ctx.Err()
// that names the last stage). isDeleted/isPurged projects end the wait with an error too.
//
// The first poll comes one interval after the call. The interval grows by
// half after each poll without a stage change, up to
// MaxPollInterval, and drops back to PollInterval when the stage moves, since a
// moving pipeline is likely to move again soon.
func (c *Client) WaitForProject(ctx context.Context, id string, opts WaitOptions) (*apitypes.Project, error) {
	if err := requireID("project id", id); err != nil {
		return nil, err
	}
	first := opts.PollInterval
	if first <= 0 {
		first = 5 * time.Second
	}
	ceiling := opts.MaxPollInterval
	if ceiling <= 0 {
		ceiling = 30 * time.Second
	}
	ceiling = max(ceiling, first)

	last := opts.Known
	var lastStage apitypes.Stage
	if last != nil {
		lastStage = last.Stage
	}
	interval := first
	for poll := 0; ; poll++ {
		// The caller has just created or read the project: the first look
		// waits one interval too, instead of spending a request on news
		// that cannot have happened yet.
		if poll == 0 {
			if err := sleep(ctx, first); err != nil {
				return last, fmt.Errorf("waiting for project %s (last stage %s): %w", id, stageName(lastStage), err)
			}
		}
		p, err := c.GetProject(ctx, id)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
				return last, fmt.Errorf("waiting for project %s (last stage %s): %w", id, stageName(lastStage), err)
			}
			return last, fmt.Errorf("waiting for project %s: %w", id, err)
		}
		last = p
		if p.Stage != lastStage {
			lastStage = p.Stage
			interval = first
			if opts.OnStageChange != nil {
				opts.OnStageChange(p)
			}
		} else {
			interval = min(interval+interval/2, ceiling)
		}
		if p.IsDeleted || p.IsPurged || p.Stage.Terminal() {
			c.limiter.notifyFreed() // the project no longer holds a concurrent slot
		}
		switch {
		case p.IsDeleted || p.IsPurged:
			return p, fmt.Errorf("waiting for project %s: the project was deleted or purged by the service (isDeleted=%t, isPurged=%t) in stage %s",
				id, p.IsDeleted, p.IsPurged, stageName(p.Stage))
		case p.Stage == apitypes.StageComplete:
			return p, nil
		case p.Stage == apitypes.StageStalled:
			return p, &StalledError{Project: p}
		}
		if err := sleep(ctx, interval); err != nil {
			return last, fmt.Errorf("waiting for project %s: still in stage %s: %w", id, stageName(lastStage), err)
		}
	}
}

func stageName(s apitypes.Stage) string {
	if s == "" {
		return "unknown (never read)"
	}
	return string(s)
}
