package client

import (
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Projects created together (a wave: the creates a batch's free slots let
// go at once) take about as long as each other, and the model's samples come
// from earlier waves. When a wave runs longer than they say, every project
// of it polled at its own due would be polled early, a call each. Instead
// the wave learns from one look: a wait whose project is due within a
// followLag after another project of its wave is looked at holds its poll
// until that look's answer re-plans it (COMPLETE: a sample of its own wave,
// and the rest poll at their dues; still running: the lead's next look,
// which the others hold for in turn). A hold never passes a re-poll step
// (an eighth of the typical time) after the project's own due, the lateness
// an early look of its own would have cost, and a wave with an answer (a
// project of it seen COMPLETE) holds for nothing, so follows never chain.

// followLag is how long after its lead's look a follower looks at the
// latest, when the lead's answer has not re-planned it before (at most a
// re-poll step).
const followLag = time.Second

// answeredKept bounds the creation times of finished projects kept; a wave
// is answered by its own, which are among the latest.
const answeredKept = 64

// look is a wait's next look at its project, in the service's clock.
type look struct {
	created, at time.Time
	bytes       int64 // the project's source size, 0 when unknown
	late        bool  // a look at or after the project's due found it running
}

// followLocked is p's poll time, its own due held for a look at another
// project of its wave as described above.
func (m *paceModel) followLocked(p *apitypes.Project, due time.Time, typical time.Duration) time.Time {
	created, ok := parseStamp(p.CreatedAt)
	step := typical / 8
	lag := min(followLag, step)
	if !ok || m.waveAnsweredLocked(created, step) {
		return due
	}
	bytes := m.sourceBytes[p.SourceID]
	held := due
	for id, l := range m.looks {
		gap := l.created.Sub(created)
		if id == p.ID || l.bytes != bytes || gap > step || gap < -step {
			continue
		}
		first := l.at.Before(due) || (l.at.Equal(due) && id < p.ID)
		if l.late || (first && l.at.Add(lag).After(due)) {
			held = latest(held, l.at.Add(lag))
		}
	}
	if bound := due.Add(step); held.After(bound) {
		return bound
	}
	return held
}

// waveAnsweredLocked reports whether a project created within step of
// created was seen to finish.
func (m *paceModel) waveAnsweredLocked(created time.Time, step time.Duration) bool {
	for _, c := range m.answered {
		if d := c.Sub(created); d <= step && d >= -step {
			return true
		}
	}
	return false
}

func (m *paceModel) answeredLocked(created time.Time) {
	m.answered = append(m.answered, created)
	if len(m.answered) > answeredKept {
		m.answered = m.answered[len(m.answered)-answeredKept:]
	}
}

// willLook records that p's wait looks at p at its own due, and wakes the
// other waits when that is news, so that those of its wave due just after
// hold for it. A project once found running after its due stays a late
// lead while its wait lasts.
func (m *paceModel) willLook(p *apitypes.Project) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if due, _, ok := m.ownDueLocked(p); ok {
		m.setLookLocked(p, due, m.looks[p.ID].late)
	}
}

// overdue records that p, polled at or after its due, was still running
// and is looked at next at next (the service's clock).
func (m *paceModel) overdue(p *apitypes.Project, next time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setLookLocked(p, next, true)
}

func (m *paceModel) setLookLocked(p *apitypes.Project, at time.Time, late bool) {
	created, ok := parseStamp(p.CreatedAt)
	if !ok {
		return
	}
	l := look{created: created, at: at, bytes: m.sourceBytes[p.SourceID], late: late}
	if m.looks[p.ID] == l {
		return
	}
	m.looks[p.ID] = l
	m.wakeLocked()
}

// forgetLook drops p's look (its wait is over) and lets the waits that held
// for it plan without it.
func (m *paceModel) forgetLook(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forgetLookLocked(id)
}

func (m *paceModel) forgetLookLocked(id string) {
	if _, ok := m.looks[id]; ok {
		delete(m.looks, id)
		m.wakeLocked()
	}
}
