package dependency

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/repeat"
)

// DefaultProbePeriod is the time between probes of a dependency that
// answers: light (one read), and what bounds how long an outage no call
// met goes unseen.
const DefaultProbePeriod = 10 * time.Second

// Health knows which dependencies answer. Each watched one is probed
// periodically by a repeat.Loop, and at once when a call through a Retry
// meets a transient failure; while its probes fail the loop's failure
// curve paces them and the ERROR lines that say what is down. A nil
// *Health ignores what it is told. Its methods are safe for concurrent use.
type Health struct {
	log *slog.Logger
	// Period is the time between probes of a dependency that answers;
	// FailureBase and FailureMax override the failure curve's (tests).
	Period                  time.Duration
	FailureBase, FailureMax time.Duration

	mu   sync.Mutex
	deps map[string]*watched
	// down counts the dependencies down, so that Succeeded, told of every
	// call, takes no lock while all answer.
	down atomic.Int32
}

// watched is one dependency: its probe, its loop, and its last failure
// (nil while it answers).
type watched struct {
	probe func(context.Context) error
	loop  repeat.Loop
	down  error
	since time.Time
}

// NewHealth is a Health logging to logger (nil: discard).
func NewHealth(logger *slog.Logger) *Health {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Health{log: logger, deps: map[string]*watched{}}
}

// Watch adds the dependency name, probed by probe (a call tried once:
// its ctx is Once's). Watch before Start.
func (h *Health) Watch(name string, probe func(context.Context) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.deps[name] = &watched{probe: probe}
}

// Start starts probing every watched dependency until Stop or ctx ends.
func (h *Health) Start(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for name, w := range h.deps {
		w.loop.FailureBase, w.loop.FailureMax = h.FailureBase, h.FailureMax
		w.loop.OnFailure = func(err error, failures int, retryIn time.Duration) {
			h.log.Error(name+" unreachable: calls to it wait and retry; projects resume when it answers",
				"dependency", name, "err", err, "failures", failures, "down_for", time.Since(h.downSince(name)).Round(time.Second), "probe_in", retryIn)
		}
		w.loop.Start(ctx, func(ctx context.Context) (time.Duration, error) {
			err := w.probe(context.WithValue(Once(ctx), probeKey{}, true))
			if ctx.Err() != nil {
				return 0, ctx.Err() // stopped: the loop ends, counting no failure
			}
			if err != nil {
				h.Failed(name, err)
				return 0, err
			}
			h.Succeeded(name)
			return cmpOr(h.Period, DefaultProbePeriod), nil
		})
	}
}

// Stop stops the probes and waits for them.
func (h *Health) Stop() {
	if h == nil {
		return
	}
	h.mu.Lock()
	loops := make([]*repeat.Loop, 0, len(h.deps))
	for _, w := range h.deps {
		loops = append(loops, &w.loop)
	}
	h.mu.Unlock()
	for _, l := range loops {
		l.Stop()
	}
}

// Failed records a transient failure of a call to name: from up, it is
// down from now and its probe runs at once (the probe's loop logs).
func (h *Health) Failed(name string, err error) { h.failed(name, err, true) }

// failed is Failed; wake false leaves the probe to its schedule (the
// failure is the probe's own).
func (h *Health) failed(name string, err error, wake bool) {
	if h == nil {
		return
	}
	h.mu.Lock()
	w := h.deps[name]
	wasUp := w != nil && w.down == nil
	if w != nil {
		if wasUp {
			w.since = time.Now()
			h.down.Add(1)
		}
		w.down = err
	}
	h.mu.Unlock()
	if wasUp && wake {
		w.loop.Wake()
	}
}

// Succeeded records a call to name that was answered: up from now.
func (h *Health) Succeeded(name string) {
	if h == nil || h.down.Load() == 0 {
		return
	}
	h.mu.Lock()
	w := h.deps[name]
	var downFor time.Duration
	wasDown := w != nil && w.down != nil
	if wasDown {
		downFor = time.Since(w.since)
		w.down = nil
		h.down.Add(-1)
	}
	h.mu.Unlock()
	if wasDown {
		h.log.Info(name+" answers again", "dependency", name, "down_for", downFor.Round(time.Millisecond))
	}
}

func (h *Health) downSince(name string) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w := h.deps[name]; w != nil && w.down != nil {
		return w.since
	}
	return time.Now()
}

// Names are the watched dependencies, sorted.
func (h *Health) Names() []string {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	names := make([]string, 0, len(h.deps))
	for name := range h.deps {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Up reports whether name answered its last call or probe.
func (h *Health) Up(name string) bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.deps[name]
	return w == nil || w.down == nil
}

// Ready is nil while every watched dependency answers, else an error
// saying which do not and why: /readyz's answer.
func (h *Health) Ready() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var down []string
	for name, w := range h.deps {
		if w.down != nil {
			down = append(down, "the "+name+" is unreachable ("+w.down.Error()+")")
		}
	}
	if len(down) == 0 {
		return nil
	}
	slices.Sort(down)
	return errors.New("not ready: " + strings.Join(down, "; ") + "; calls to it wait and retry")
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
