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
// that names the last stage). isDeleted/isPurged projects end the wait with an error too, and so
// does an answer of the service to a poll (a 404, say).
//
// A poll that fails without the service's word on the project (IsTransient:
// the service down or restarting, a 5xx, a timeout) says nothing about the
// project, which goes on running on the service: the wait polls again on the
// backoff curve, from PollInterval up to MaxPollInterval, until ctx ends.
//
// Polls are spaced by when the project should be done, as learned in this
// process from the projects seen so far (paceModel): one poll when it is due,
// and a few more when it runs late. Before anything has been learned one wait
// of the process polls on the plain backoff (the first poll one PollInterval
// after the call, growing by half without a stage change up to
// MaxPollInterval) and the others wait for what it learns. Every poll goes
// through the process's one rate limiter.
func (c *Client) WaitForProject(ctx context.Context, id string, opts WaitOptions) (*apitypes.Project, error) {
	if err := requireID("project id", id); err != nil {
		return nil, err
	}
	w := newProjectWait(id, opts)
	if w.last == nil || !freesSlot(w.last) {
		c.slots.inFlight(id) // a wait is for a project in flight: its end frees a slot
	}
	defer c.slots.watch(id)()
	defer c.pace.dropScout(id)
	defer c.pace.forgetLook(id)
	for {
		var (
			d    time.Duration
			wake <-chan struct{}
		)
		if w.failures > 0 {
			d = w.retryIn()
		} else {
			d, wake = c.plan(w, time.Now())
		}
		if err := sleepOrWake(ctx, d, wake); err != nil {
			return w.last, w.interrupted(err)
		}
		if isClosed(wake) {
			continue // a prediction may have changed: plan again
		}
		p, err := c.GetProject(ctx, id)
		if err != nil {
			if w.rideOut(ctx, err) {
				c.warn(ctx, "clipper project poll failed; riding it out", map[string]any{
					"project_id": id, "failed_polls": w.failures, "error": err,
				})
				continue
			}
			return w.last, w.pollFailed(ctx, err)
		}
		w.answered()
		w.saw(p, time.Now())
		if over, err := waitOver(id, p); over {
			return p, err
		}
	}
}

// pacedCeilings bounds a predicted wait to this many MaxPollIntervals, so a
// model misled by slower projects (another source, another load) still looks
// again soon: two minutes at the default 30 s.
const pacedCeilings = 4

// plan is nextPoll, and when w's last poll came at or after the project's
// due and found it running, tells the model when w looks next, so that the
// waits of projects created with it follow that look (waves.go).
// That is said once per poll: telling wakes the other waits, and a wait
// woken to plan again must not wake them back.
func (c *Client) plan(w *projectWait, now time.Time) (time.Duration, <-chan struct{}) {
	d, wake := c.nextPoll(w, now)
	if w.lateLook {
		w.lateLook = false
		c.pace.overdue(w.last, now.Add(d-w.offset))
	}
	return d, wake
}

// nextPoll is how long w waits before its next poll, and a channel that,
// when closed first, means the wait should be planned again instead.
//   - With a prediction: until the project is due, planning again when the
//     model changes (a sample, a lead to follow); after the floor when it
//     became due since the last poll; an eighth of the typical time (at least the
//     floor) after the last poll when that poll, after the due or less than
//     that step before it, found it still running.
//   - Without one, the scout polls on the plain backoff; the others wait
//     for a prediction, or for the scout's wait to end.
//
// The caller has just created or read the project, so even the first look
// waits: news cannot have happened yet.
func (c *Client) nextPoll(w *projectWait, now time.Time) (time.Duration, <-chan struct{}) {
	longest := pacedCeilings * w.ceiling
	c.pace.setRateBound(c.rateBound(now))
	if w.last != nil {
		if due, ok := c.pace.due(w.last); ok {
			due = due.Add(w.offset) // the service's clock to this one's
			w.plannedDue = due
			step := min(max(c.pace.typical(w.last)/8, w.floor), w.ceiling)
			switch {
			case due.After(now):
				wake := c.pace.next()
				c.pace.willLook(w.last)
				return min(max(due.Sub(now), w.floor), longest), wake
			case w.polledAt.Before(due.Add(-step)):
				// Due since a look well before it: look after the floor. At
				// once was tried: the first wave, due from one sample with
				// no margin, was then read just before it finished.
				return w.floor, nil
			}
			// A look at the due, or less than a step before it (a sample
			// that came since moved the due past it), found it running.
			return max(w.polledAt.Add(step).Sub(now), w.floor), nil
		}
	}
	w.plannedDue = time.Time{}
	if w.last == nil || c.pace.claimScout(w.id) {
		return w.unpaced(now), nil
	}
	// The scout's wait always ends (COMPLETE, STALLED, an error, ctx) and
	// then wakes this one; the timer is only a backstop.
	return longest, c.pace.next()
}

// rateBound reports whether this process's projects still need more calls
// to the rate-limited routes than its rate window has left at now: then an
// early poll costs more than a late one (rateBoundLag).
func (c *Client) rateBound(now time.Time) bool {
	return c.slots.callsAhead() > c.limiter.left(now)
}

// unpaced is the plain backoff's interval, at most a third of the project's
// age (but not under the first interval): the scout's finish times the
// whole first wave, so it is found late by at most a third of its run.
func (w *projectWait) unpaced(now time.Time) time.Duration {
	if w.last == nil || !w.anchored {
		return w.interval
	}
	created, ok := parseStamp(w.last.CreatedAt)
	if !ok {
		return w.interval
	}
	age := now.Sub(created.Add(w.offset))
	return min(w.interval, max(w.first, age/3))
}

func isClosed(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// projectWait is the state of one WaitForProject: the last project seen and
// the interval to the next poll.
type projectWait struct {
	id             string
	first, ceiling time.Duration // the PollInterval and MaxPollInterval in force
	floor          time.Duration // shortest paced wait: at most a second
	interval       time.Duration // before the next unpaced poll
	last           *apitypes.Project
	polledAt       time.Time // when last was read by this wait
	plannedDue     time.Time // when the planned poll's project was due (this clock); zero unpaced
	lateLook       bool      // the last poll came at or after plannedDue and found the project running
	// offset maps the service's timestamps to this machine's clock: this
	// clock when the first answer arrived, less the latest stamp in it (the
	// create answer's createdAt is the service's now). Predictions then
	// hold whatever the skew between the two clocks.
	offset        time.Duration
	anchored      bool
	lastStage     apitypes.Stage
	onStageChange func(p *apitypes.Project)
	outage
}

// intervals is opts' first and longest poll intervals, defaults filled in.
func (opts WaitOptions) intervals() (first, ceiling time.Duration) {
	first = opts.PollInterval
	if first <= 0 {
		first = 5 * time.Second
	}
	ceiling = opts.MaxPollInterval
	if ceiling <= 0 {
		ceiling = 30 * time.Second
	}
	return first, max(ceiling, first)
}

func newProjectWait(id string, opts WaitOptions) *projectWait {
	first, ceiling := opts.intervals()
	w := &projectWait{
		id: id, first: first, ceiling: ceiling, interval: first, floor: min(first, time.Second),
		last: opts.Known, onStageChange: opts.OnStageChange,
	}
	if w.last != nil {
		w.lastStage = w.last.Stage
		w.anchor(w.last, time.Now())
	}
	return w
}

// anchor sets w's clock offset from the first answer it has, received at at.
func (w *projectWait) anchor(p *apitypes.Project, at time.Time) {
	if w.anchored {
		return
	}
	created, ok1 := parseStamp(p.CreatedAt)
	updated, ok2 := parseStamp(p.UpdatedAt)
	if !ok1 && !ok2 {
		return
	}
	w.offset, w.anchored = at.Sub(latest(created, updated)), true
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// saw records a polled project: a new stage resets the interval and is
// reported; the same stage again stretches the interval by half.
func (w *projectWait) saw(p *apitypes.Project, at time.Time) {
	w.last, w.polledAt = p, at
	w.anchor(p, at)
	w.lateLook = !w.plannedDue.IsZero() && !at.Before(w.plannedDue) && p.Stage.InFlight()
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

// retryIn is the wait before the poll after w.failures failed ones: the one
// backoff curve, between the wait's first and longest intervals.
func (w *projectWait) retryIn() time.Duration {
	return w.outage.retryIn(w.first, w.ceiling)
}

// interrupted is the error of a wait cut short by ctx, naming the last stage
// and, when the polls were failing, why.
func (w *projectWait) interrupted(err error) error {
	return fmt.Errorf("waiting for project %s (last stage %s%s): %w", w.id, stageName(w.lastStage), w.failing(), err)
}

// pollFailed is the error of a failed poll: a deadline names the last stage
// like any interruption; an answer of the service (404, say) stands alone.
func (w *projectWait) pollFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return w.interrupted(err)
	}
	return fmt.Errorf("waiting for project %s: %w", w.id, err)
}

// freesSlot reports whether p no longer holds a slot of the concurrent cap.
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

// outage is the polls of a wait that failed in a row without the service's
// word on what it waits for (IsTransient: the service down or restarting, a
// 5xx, a timeout). They say nothing about the project or job, which goes on
// on the service, so a wait rides them out on the backoff curve until its
// context ends; only an answer (a 404, FAILED, STALLED) ends it early.
type outage struct {
	failures int   // polls failed in a row
	lastErr  error // why the last of them failed
}

// rideOut records a failed poll and reports whether the wait goes on: the
// failure is transient and ctx is still running.
func (o *outage) rideOut(ctx context.Context, err error) bool {
	if ctx.Err() != nil || !IsTransient(err) {
		return false
	}
	o.failures++
	o.lastErr = err
	return true
}

// answered ends the outage: a poll got the service's answer.
func (o *outage) answered() { o.failures, o.lastErr = 0, nil }

// retryIn is the wait before the poll after o.failures failed ones, on the
// one backoff curve from first to ceiling.
func (o *outage) retryIn(first, ceiling time.Duration) time.Duration {
	return backoff(o.failures, first, ceiling)
}

// failing names the outage in a wait's error ("" when the polls were
// answered), so a timeout that ended it says why nothing was learned.
func (o *outage) failing() string {
	if o.lastErr == nil {
		return ""
	}
	return fmt.Sprintf("; the last %d poll(s) failed, the last with: %v", o.failures, o.lastErr)
}

// WaitForCensorJob polls censor job id, of project projectID, every
// opts.PollInterval (default 5s) until it ends: it returns the status once
// CONCLUDED or FAILED (the caller reads the reason of a FAILED job), the last
// status seen and an error wrapping ctx.Err() when ctx ends first, and the
// error of an answer about the job (a 404, say). Like WaitForProject it
// rides out an outage: polls that fail transiently are sent again on the
// backoff curve, up to opts.MaxPollInterval (default 30s) apart.
func (c *Client) WaitForCensorJob(ctx context.Context, id, projectID string, opts WaitOptions) (*apitypes.CensorJobStatus, error) {
	if err := requireID("censor job id", id); err != nil {
		return nil, err
	}
	first, ceiling := opts.intervals()
	var o outage
	last := &apitypes.CensorJobStatus{Status: apitypes.CensorQueued}
	interrupted := func(cause error) error {
		return fmt.Errorf("waiting for censor job %s (last status %s%s): %w", id, last.Status, o.failing(), cause)
	}
	for {
		d := first
		if o.failures > 0 {
			d = o.retryIn(first, ceiling)
		}
		if err := sleep(ctx, d); err != nil {
			return last, interrupted(err)
		}
		st, err := c.GetCensorJob(ctx, id, projectID)
		if err != nil {
			if o.rideOut(ctx, err) {
				c.warn(ctx, "clipper censor job poll failed; riding it out", map[string]any{
					"job_id": id, "failed_polls": o.failures, "error": err,
				})
				continue
			}
			if ctx.Err() != nil {
				if !errors.Is(err, ctx.Err()) {
					err = ctx.Err()
				}
				return last, interrupted(err)
			}
			return last, fmt.Errorf("waiting for censor job %s: %w", id, err)
		}
		o.answered()
		last = st
		if censorEnded(st.Status) {
			return st, nil
		}
	}
}
