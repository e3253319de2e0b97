package quietlog

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// A failure repeated every 100 ms for 10 minutes by 50 callers (projects)
// is logged on the failure curve: at 0, 1, 3, 7, 15, 31, 63, 127, 255 and
// 511 s (then every 5 minutes), each line counting the records it stands
// for: 10 lines for 300,000 records.
func TestRepeatedFailureIsLoggedOnTheCurve(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	log := slog.New(New(slog.NewTextHandler(&buf, nil), c.now)).With("component", "pipeline")
	full := errors.New("database or disk is full (13)")
	start := c.t
	records := 0
	for c.t.Sub(start) < 10*time.Minute {
		for p := range 50 {
			log.Error("requeue a project", "project", p, "err", fmt.Errorf("requeue project %d: %w", p, full))
			records++
		}
		c.t = c.t.Add(100 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines for %d records, want 10:\n%s", len(lines), records, buf.String())
	}
	if strings.Contains(lines[0], RepeatedKey) {
		t.Fatalf("the first line says it repeats: %s", lines[0])
	}
	// One more, once the next line is due, counts the records held since
	// the last line.
	c.t = c.t.Add(4 * time.Minute) // past the line due at 811 s, within Max of the last record
	log.Error("requeue a project", "err", full)
	records++
	lines = strings.Split(strings.TrimSpace(buf.String()), "\n")
	total := 1
	for _, l := range lines[1:] {
		var n int
		i := strings.Index(l, RepeatedKey+"=")
		if i < 0 || !strings.Contains(l, SinceKey+"=2026-01-01T00:00:00") {
			t.Fatalf("line without its count and start: %s", l)
		}
		if _, err := fmt.Sscanf(l[i+len(RepeatedKey)+1:], "%d", &n); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		total += n + 1
	}
	if total != records {
		t.Fatalf("lines stand for %d records of %d", total, records)
	}
}

// Distinct failures, info lines and warnings without an error are never
// held back, and a failure quiet for longer than Max is news again.
func TestOtherLinesPassAndAStoppedFailureIsNewsAgain(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	h := New(slog.NewTextHandler(&buf, nil), c.now)
	log := slog.New(h)
	for range 3 {
		log.Info("project stage", "err", errors.New("x"))
		log.Warn("no transcripts")
		log.Error("render", "err", errors.New("ffmpeg: exit status 1"))
		log.Error("render", "err", errors.New("ffmpeg: exit status 2"))
		slog.New(h.WithAttrs([]slog.Attr{slog.String("component", "jobs")})).Error("render", "err", errors.New("ffmpeg: exit status 1"))
	}
	if got := strings.Count(buf.String(), "\n"); got != 3+3+3 {
		t.Fatalf("%d lines, want 9 (each distinct failure once, every info and plain warning):\n%s", got, buf.String())
	}
	buf.Reset()
	c.t = c.t.Add(Max + time.Second)
	log.Error("render", "err", errors.New("ffmpeg: exit status 1"))
	if l := buf.String(); l == "" || strings.Contains(l, RepeatedKey) {
		t.Fatalf("a failure back after %s: %q, want a fresh line", Max, l)
	}
}

func TestCauseFollowsWrapsAndJoins(t *testing.T) {
	full := errors.New("full")
	if got := Cause(errors.Join(fmt.Errorf("a: %w", full), errors.New("b"))); got != full {
		t.Fatalf("Cause = %v", got)
	}
}

// All holds back River's retry lines that name no error, sharing the
// counts of the handler it is made from; without All they pass.
func TestAllHoldsBackLinesWithoutAnError(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	h := New(slog.NewTextHandler(&buf, nil), c.now)
	plain := slog.New(h.WithAttrs([]slog.Attr{slog.String("component", "jobs")}))
	river := slog.New(All(plain.Handler()))
	for range 10 {
		plain.Error("jobcompleter.BatchCompleter: Too many errors; giving up")
	}
	if got := strings.Count(buf.String(), "\n"); got != 10 {
		t.Fatalf("%d lines without All, want every one of 10", got)
	}
	buf.Reset()
	for range 10 {
		river.Error("jobcompleter.BatchCompleter: Too many errors; giving up")
		c.t = c.t.Add(100 * time.Millisecond)
	}
	// At 0 s, then 1 s on (the 11th), counting the 9 between.
	river.Error("jobcompleter.BatchCompleter: Too many errors; giving up")
	if got := strings.Count(buf.String(), "\n"); got != 2 || !strings.Contains(buf.String(), RepeatedKey+"=9") {
		t.Fatalf("with All: %d lines, want 2, the second with repeated=9:\n%s", got, buf.String())
	}
	if _, ok := All(slog.NewTextHandler(&buf, nil)).(*Handler); !ok {
		t.Fatal("All of a plain handler does not quiet it")
	}
}
