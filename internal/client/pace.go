package client

import (
	"math"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// paceModel learns, in this process, how long projects take to reach each
// stage, so a wait polls when its project should be done instead of on a
// fixed interval. Every answer about a project tells the stage it is in and
// when it entered it (updatedAt, stamped by the service at each stage
// change), so the time from createdAt to entering the stage is one exact
// sample, even when polls skip stages. Samples are kept per byte of the
// source when its size is known (an upload of this process), since
// processing time grows with the source's length, and as plain seconds
// otherwise.
//
// Until a first project has been seen COMPLETE there is nothing to predict
// from: one wait (the scout) polls on the plain backoff and the others wait
// for what it learns, so a batch started together spends a few polls, not a
// few per project.
type paceModel struct {
	mu sync.Mutex
	// reach holds, per stage, samples of the time from creation to entering it.
	reach map[apitypes.Stage]*samples
	// sourceBytes are the sizes of this process's uploads, by uploadId
	// (a project's sourceId).
	sourceBytes map[string]int64
	// stageSeen is the last stage this process saw of each project; only a
	// change from an in-flight stage it saw teaches anything (an old project's
	// updatedAt may be a later edit, not its stage's start).
	stageSeen map[string]apitypes.Stage
	scout     string // project id of the wait polling without a model; "" when none
	// looks are the waits' next looks at their projects, by project id, and
	// answered the creation times of projects seen to finish: a wave of
	// projects created together learns from one look (waves.go).
	looks    map[string]look
	answered []time.Time
	// rateBound: the process has more calls ahead than its rate window has
	// left (Client.rateBound), and its polls come a step after their dues.
	rateBound bool
	changed   chan struct{} // closed and replaced when a prediction may have changed
}

// samples are observations of one quantity, plain and per source byte.
type samples struct {
	plain, perByte stat
}

// stat is the mean and mean absolute deviation of the latest samples of one
// quantity, enough to say when a project should be done and how late it may
// reasonably be. Only the latest count: processing times move with the
// service's load, and the projects that ran last (a wave of the
// concurrent cap) say more about the next than those of an hour ago. In a
// loaded 20-project bench the first wave took 85 s and the later ones 40 to
// 55 s, and a mean over every sample polled each later wave 10 to 30 s late.
type stat struct {
	latest []float64 // oldest first, at most keptSamples
}

// keptSamples is one wave at the default concurrent cap.
const keptSamples = DefaultMaxConcurrentProjects

func (s *stat) add(v float64) {
	s.latest = append(s.latest, v)
	if len(s.latest) > keptSamples {
		s.latest = s.latest[len(s.latest)-keptSamples:]
	}
}

func (s *stat) n() int { return len(s.latest) }

func (s *stat) mean() float64 {
	sum := 0.0
	for _, v := range s.latest {
		sum += v
	}
	return sum / float64(len(s.latest))
}

// spread is the mean absolute deviation from the mean (0 with one sample).
func (s *stat) spread() float64 {
	if len(s.latest) < 2 {
		return 0
	}
	m, dev := s.mean(), 0.0
	for _, v := range s.latest {
		dev += math.Abs(v - m)
	}
	return dev / float64(len(s.latest)-1)
}

func newPaceModel() *paceModel {
	return &paceModel{
		reach:       map[apitypes.Stage]*samples{},
		sourceBytes: map[string]int64{},
		stageSeen:   map[string]apitypes.Stage{},
		looks:       map[string]look{},
		changed:     make(chan struct{}),
	}
}

// uploaded records the size of an upload, so projects made from it are
// predicted from their source's length.
func (m *paceModel) uploaded(uploadID string, size int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sourceBytes[uploadID] = size
}

// observe learns from one answer about project p: the time from its creation
// to entering its current stage, when the process saw it in an earlier
// stage still in flight (so updatedAt is when this stage began).
func (m *paceModel) observe(p *apitypes.Project) {
	created, ok1 := parseStamp(p.CreatedAt)
	entered, ok2 := parseStamp(p.UpdatedAt)
	m.mu.Lock()
	defer m.mu.Unlock()
	prev, watched := m.stageSeen[p.ID]
	m.stageSeen[p.ID] = p.Stage
	if !p.Stage.InFlight() {
		m.forgetLookLocked(p.ID) // ended: its followers plan from what it taught
	}
	if !watched || prev == p.Stage || !prev.InFlight() {
		return
	}
	if !ok1 || !ok2 || !p.Stage.Known() || p.Stage == apitypes.StageStalled || entered.Before(created) {
		return
	}
	secs := entered.Sub(created).Seconds()
	s := m.reach[p.Stage]
	if s == nil {
		s = &samples{}
		m.reach[p.Stage] = s
	}
	s.plain.add(secs)
	if b := m.sourceBytes[p.SourceID]; b > 0 {
		s.perByte.add(secs / float64(b))
	}
	if p.Stage == apitypes.StageComplete {
		m.answeredLocked(created)
		m.wakeLocked()
	}
}

// expected returns how long after creation project p should reach stage,
// and the margin to allow for lateness; ok is false without samples.
func (m *paceModel) expected(p *apitypes.Project, stage apitypes.Stage) (at, margin time.Duration, ok bool) {
	s := m.reach[stage]
	if s == nil {
		return 0, 0, false
	}
	if b := m.sourceBytes[p.SourceID]; b > 0 && s.perByte.n() > 0 {
		return seconds(s.perByte.mean() * float64(b)), seconds(s.perByte.spread() * float64(b) / marginShare), true
	}
	if s.plain.n() == 0 {
		return 0, 0, false
	}
	return seconds(s.plain.mean()), seconds(s.plain.spread() / marginShare), true
}

// marginShare: a poll lands half the samples' spread after the mean. A poll
// that comes too early costs one more poll, an eighth of the typical time
// later, and the calls an apply may spend are the scarcer budget: with 8
// projects of about 20 s the scout's looks leave room for one early poll
// at most under 3.5 calls a project, while the wall-time target leaves about
// 10 s, against half a second more per wave for half the spread instead of
// a quarter. (On this shared 2-core machine 8-project runs had 0 to 3 early
// polls with either share: a wave's spread moves with the load more than
// with the margin.) The whole spread made every
// poll of a 20-project benchmark land long after most projects had finished,
// when a mean over every sample let one slow project widen it; the spread is
// now of the latest wave's samples only.
const marginShare = 2

// due predicts when project p, as last seen, should be COMPLETE: the
// samples' time from entering its stage to completion after the moment it
// entered it, plus their spread, so a poll rather lands just after than just
// before; held, when p's wave has no answer yet, for a look at another
// project of its wave (followLocked). ok is false when nothing has been
// learned yet.
func (m *paceModel) due(p *apitypes.Project) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	own, typical, ok := m.ownDueLocked(p)
	if !ok {
		return time.Time{}, false
	}
	return m.followLocked(p, own, typical), true
}

// setRateBound records whether the process is bound by its rate window, and
// wakes the waits when that moves their dues.
func (m *paceModel) setRateBound(bound bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rateBound != bound {
		m.rateBound = bound
		m.wakeLocked()
	}
}

// rateBoundLag is the share of the typical time a rate-bound process's polls
// come after their dues. When more calls are ahead than the window has
// left, a poll that finds its project running is one more call the window
// must make room for, which costs up to a minute once the apply is bound by
// the window (every call past the first minute's 30 waits for one of them to
// leave it), while a poll that comes late costs only the lateness, which the
// window's wait then mostly hides. In a 20-project bench 6 early polls, with
// the 4 scout looks, were 70 calls against the least 60, and the apply took
// 151 s where those 60 calls would have allowed about 105 s.
const rateBoundLag = 8

// ownDueLocked is p's prediction from the samples alone (a rateBoundLag
// later when the process is bound by its rate window), and the typical
// time from creation to COMPLETE.
func (m *paceModel) ownDueLocked(p *apitypes.Project) (time.Time, time.Duration, bool) {
	created, ok := parseStamp(p.CreatedAt)
	if !ok {
		return time.Time{}, 0, false
	}
	done, margin, ok := m.expected(p, apitypes.StageComplete)
	if !ok {
		return time.Time{}, 0, false
	}
	due := created.Add(done + margin)
	if entered, ok := parseStamp(p.UpdatedAt); ok && p.Stage != apitypes.StageQueued {
		if reach, _, ok := m.expected(p, p.Stage); ok && done > reach {
			due = entered.Add(done - reach + margin)
		}
	}
	if m.rateBound {
		due = due.Add(done / rateBoundLag)
	}
	return due, done, true
}

// typical is the expected time from creation to COMPLETE of project p, or 0.
func (m *paceModel) typical(p *apitypes.Project) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, _, _ := m.expected(p, apitypes.StageComplete)
	return d
}

// claimScout makes the wait of project id the scout when there is none.
func (m *paceModel) claimScout(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.scout == "" {
		m.scout = id
	}
	return m.scout == id
}

// dropScout ends id's scouting (its wait is over) and wakes the other waits,
// one of which takes over if there is still nothing to predict from.
func (m *paceModel) dropScout(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.scout == id {
		m.scout = ""
		m.wakeLocked()
	}
}

// next returns the channel closed when a prediction may have changed.
func (m *paceModel) next() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

func (m *paceModel) wakeLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}

func parseStamp(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
