// Package quietlog keeps a failure that repeats from flooding the log. A
// store that cannot be written (a full disk) fails every loop, every
// project and River's own elector and completer, each on its own retry
// curve; each failure used to be one line, so the lines grew with the
// number of loops and projects. Here a warning or error that carries an
// error is logged the first time, then once per step of the loops' failure
// curve (internal/backoff: 1 s doubling to 5 min) with the number of
// repeats it stands for, whatever the number of callers failing alike.
package quietlog

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
)

// The curve of one repeating failure's lines, as the loops' (repeat's
// FailureBase and FailureMax, which this package cannot import): lines at
// 0, 1, 3, 7, 15, 31 and 63 s, then every 5 minutes.
const (
	Base = time.Second
	Max  = 5 * time.Minute
)

// Attributes added to a line that stands for repeats: how many records
// were held back since the previous line and since when the failure lasts.
const (
	RepeatedKey = "repeated"
	SinceKey    = "failing_since"
)

// Handler passes records on to the next handler, except warnings and
// errors that repeat one seen within the current step of its curve.
type Handler struct {
	next  slog.Handler
	attrs string // the With attributes and groups, part of each key
	// all holds back warnings and errors without an error too (River's,
	// whose completer says "Too many errors; giving up" with none).
	all   bool
	state *state
	// Now is the clock (tests); nil is time.Now.
	now func() time.Time
}

type state struct {
	mu   sync.Mutex
	seen map[string]*repeats
}

// repeats is one failure's record: when it started, its lines so far, the
// next time a line is due, the records held back since the last line.
type repeats struct {
	since, last, due time.Time
	lines, held      int
}

// New wraps next; now is the clock (nil: time.Now).
func New(next slog.Handler, now func() time.Time) *Handler {
	if now == nil {
		now = time.Now
	}
	return &Handler{next: next, state: &state{seen: map[string]*repeats{}}, now: now}
}

// All is h holding back repeated warnings and errors that carry no error
// as well, keyed by message and attributes; it shares h's counts. For a
// library's logger (River) whose retry lines may not name their cause. A
// handler that is not a *Handler is wrapped anew.
func All(h slog.Handler) slog.Handler {
	q, ok := h.(*Handler)
	if !ok {
		q = New(h, nil)
	}
	c := *q
	c.all = true
	return &c
}

// Enabled is next's.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// WithAttrs and WithGroup share the state, so "component=jobs" and
// "component=pipeline" failures are counted apart, each one once.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(as)
	c.attrs = h.attrs + fmt.Sprint(as)
	return &c
}

func (h *Handler) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	c.attrs = h.attrs + "." + name
	return &c
}

// Handle logs r, holds it back, or logs it with the repeats it stands for.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	key, ok := h.key(r)
	if !ok {
		return h.next.Handle(ctx, r)
	}
	now := h.now()
	s := h.state
	s.mu.Lock()
	s.forget(now)
	rep := s.seen[key]
	if rep == nil || now.Sub(rep.last) > Max {
		rep = &repeats{since: now}
		s.seen[key] = rep
	}
	rep.last = now
	if now.Before(rep.due) {
		rep.held++
		s.mu.Unlock()
		return nil
	}
	held := rep.held
	rep.lines++
	rep.held = 0
	rep.due = now.Add(backoff.Exponential(rep.lines, Base, Max))
	since := rep.since
	s.mu.Unlock()
	if rep.lines > 1 {
		r = r.Clone()
		r.AddAttrs(slog.Int(RepeatedKey, held), slog.Time(SinceKey, since))
	}
	return h.next.Handle(ctx, r)
}

// key names the failure r reports: its level, message, the handler's
// attributes and its error's innermost cause (the same full disk under
// different projects' wrapping is one failure). Records below Warn, or
// without an error unless h.all, are not held back (ok false).
func (h *Handler) key(r slog.Record) (string, bool) {
	if r.Level < slog.LevelWarn {
		return "", false
	}
	var cause string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != "err" && a.Key != "error" {
			return true
		}
		if err, ok := a.Value.Resolve().Any().(error); ok {
			cause = Cause(err).Error()
		} else {
			cause = a.Value.String()
		}
		return false
	})
	if cause == "" && !h.all {
		return "", false
	}
	return strings.Join([]string{r.Level.String(), r.Message, h.attrs, cause}, "\x00"), true
}

// Cause is err's innermost cause (the first branch of a joined error).
func Cause(err error) error {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) > 0 {
				next = es[0]
			}
		}
		if next == nil {
			return err
		}
		err = next
	}
}

// forget drops failures not seen for Max (they stopped: the next one is
// news, logged at once; Handle starts such a failure afresh too); s.mu is held. It scans only once the map holds
// many, so a failure storm costs no more than a map lookup per record.
func (s *state) forget(now time.Time) {
	if len(s.seen) < 256 {
		return
	}
	for k, rep := range s.seen {
		if now.Sub(rep.last) > Max {
			delete(s.seen, k)
		}
	}
}

var _ slog.Handler = (*Handler)(nil)
