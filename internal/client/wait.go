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
	w := newProjectWait(id, opts)
	// The caller has just created or read the project: the first look waits
	// one interval too, instead of spending a request on news that cannot
	// have happened yet.
	if err := sleep(ctx, w.first); err != nil {
		return w.last, w.interrupted(err)
	}
	for {
		p, err := c.GetProject(ctx, id)
		if err != nil {
			return w.last, w.pollFailed(ctx, err)
		}
		w.saw(p)
		if freesSlot(p) {
			c.limiter.notifyFreed() // the project no longer holds a concurrent slot
		}
		if over, err := waitOver(id, p); over {
			return p, err
		}
		if err := sleep(ctx, w.interval); err != nil {
			return w.last, fmt.Errorf("waiting for project %s: still in stage %s: %w", id, stageName(w.lastStage), err)
		}
	}
}

// projectWait is the state of one WaitForProject: the last project seen and
// the interval to the next poll.
type projectWait struct {
	id             string
	first, ceiling time.Duration // the PollInterval and MaxPollInterval in force
	interval       time.Duration // before the next poll
	last           *apitypes.Project
	lastStage      apitypes.Stage
	onStageChange  func(p *apitypes.Project)
}

func newProjectWait(id string, opts WaitOptions) *projectWait {
	first := opts.PollInterval
	if first <= 0 {
		first = 5 * time.Second
	}
	ceiling := opts.MaxPollInterval
	if ceiling <= 0 {
		ceiling = 30 * time.Second
	}
	w := &projectWait{
		id: id, first: first, ceiling: max(ceiling, first), interval: first,
		last: opts.Known, onStageChange: opts.OnStageChange,
	}
	if w.last != nil {
		w.lastStage = w.last.Stage
	}
	return w
}

// saw records a polled project: a new stage resets the interval and is
// reported; the same stage again stretches the interval by half.
func (w *projectWait) saw(p *apitypes.Project) {
	w.last = p
	if p.Stage == w.lastStage {
		w.interval = min(w.interval+w.interval/2, w.ceiling)
		return
	}
	w.lastStage = p.Stage
	w.interval = w.first
	if w.onStageChange != nil {
		w.onStageChange(p)
	}
}

// interrupted is the error of a wait cut short by ctx, naming the last stage.
func (w *projectWait) interrupted(err error) error {
	return fmt.Errorf("waiting for project %s (last stage %s): %w", w.id, stageName(w.lastStage), err)
}

// pollFailed is the error of a failed poll: a deadline names the last stage
// like any interruption; an answer of the service (404, say) stands alone.
func (w *projectWait) pollFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return w.interrupted(err)
	}
	return fmt.Errorf("waiting for project %s: %w", w.id, err)
}

// freesSlot reports whether p no longer counts against the concurrent cap.
func freesSlot(p *apitypes.Project) bool {
	return p.IsDeleted || p.IsPurged || p.Stage.Terminal()
}

// waitOver reports whether p ends the wait, and with which error.
func waitOver(id string, p *apitypes.Project) (bool, error) {
	switch {
	case p.IsDeleted || p.IsPurged:
		return true, fmt.Errorf("waiting for project %s: the project was deleted or purged by the service (isDeleted=%t, isPurged=%t) in stage %s",
			id, p.IsDeleted, p.IsPurged, stageName(p.Stage))
	case p.Stage == apitypes.StageComplete:
		return true, nil
	case p.Stage == apitypes.StageStalled:
		return true, &StalledError{Project: p}
	}
	return false, nil
}

func stageName(s apitypes.Stage) string {
	if s == "" {
		return "unknown (never read)"
	}
	return string(s)
}
