package client

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// A wave holds for one look: the polls of projects created with another one
// that is looked at first wait for its answer, at most a re-poll step past
// their own due, and not once the wave has an answer.
func TestPaceWaveFollowsOneLook(t *testing.T) {
	m := newPaceModel()
	for i, done := range []time.Duration{18 * time.Second, 22 * time.Second} {
		id := fmt.Sprintf("old%d", i)
		m.observe(seen(id, apitypes.StageQueued, t0, t0))
		m.observe(seen(id, apitypes.StageComplete, t0, t0.Add(done)))
	}
	// Typical 20 s: a re-poll step of 2.5 s; due 22 s after creation (20 s and half the 4 s spread).
	wave := t0.Add(time.Minute)
	a := seen("a", apitypes.StageQueued, wave, wave)
	b := seen("b", apitypes.StageQueued, wave.Add(400*time.Millisecond), wave.Add(400*time.Millisecond))
	later := seen("later", apitypes.StageQueued, wave.Add(10*time.Second), wave.Add(10*time.Second))
	other := seen("other", apitypes.StageQueued, wave.Add(400*time.Millisecond), wave.Add(400*time.Millisecond)) // another source size
	m.uploaded(other.SourceID, 5000)
	due := func(p *apitypes.Project) time.Duration {
		d, ok := m.due(p)
		if !ok {
			t.Fatalf("no prediction for %s", p.ID)
		}
		return d.Sub(wave)
	}
	if got := due(b); got != 22400*time.Millisecond {
		t.Fatalf("b due at %v before any look, want its own 22.4s", got)
	}

	next := m.next()
	m.willLook(a)
	if !isClosed(next) {
		t.Fatal("a's look did not wake the other waits")
	}
	if got := due(b); got != 23*time.Second {
		t.Fatalf("b due at %v, want a second after a's look at 22s", got)
	}
	if got := due(later); got != 32*time.Second {
		t.Fatalf("a project of a later wave due at %v, want its own 32s", got)
	}
	if got, _ := m.due(other); got.Sub(wave) != 22400*time.Millisecond {
		t.Fatalf("a project of another source size due at %v, want its own", got.Sub(wave))
	}

	// a was running at 22 s; its next look at 24.5 s would hold b past its
	// due plus one step (22.4 + 2.5 s).
	m.overdue(a, wave.Add(24500*time.Millisecond))
	if got := due(b); got != 24900*time.Millisecond {
		t.Fatalf("b due at %v behind a late lead, want 24.9s (its due plus one step)", got)
	}
	m.overdue(a, wave.Add(22*time.Second))
	if got := due(b); got != 23*time.Second {
		t.Fatalf("b due at %v, want a second after a's next look at 22s", got)
	}

	// a seen COMPLETE at 23 s: the wave has its answer, b polls at its own due.
	m.observe(seen("a", apitypes.StageRender, wave, wave.Add(5*time.Second)))
	m.observe(seen("a", apitypes.StageComplete, wave, wave.Add(23*time.Second)))
	m.mu.Lock()
	own, _, _ := m.ownDueLocked(b)
	looks := len(m.looks)
	m.mu.Unlock()
	if got := due(b); got != own.Sub(wave) || looks != 0 {
		t.Fatalf("b due at %v with %d looks left, want its own %v and none", got, looks, own.Sub(wave))
	}
}

// A wave that runs a little longer than the one the model learned from
// (less than a re-poll step, an eighth of the typical time) spends its extra
// poll on one project: the others are polled once, after its answer.
// (Polled each at its own due, every project of the wave was polled early
// and again a step later: two polls each.)
func TestWaitWaveSpendsItsEarlyLooksOnOneProject(t *testing.T) {
	const learned, slower = 80 * time.Millisecond, 86 * time.Millisecond
	svc := newTimedService(t)
	c := newTestClient(t, svc.URL, nil)
	if _, err := c.WaitForProject(t.Context(), "first", svc.start("first", time.Now(), learned)); err != nil {
		t.Fatal(err)
	}
	wave := []string{"w1", "w2", "w3", "w4"}
	at := time.Now()
	var wg sync.WaitGroup
	for _, id := range wave {
		o := svc.start(id, at, slower)
		wg.Go(func() {
			if _, err := c.WaitForProject(t.Context(), id, o); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	again := 0
	for _, id := range wave {
		if svc.polls(id) > 1 {
			again++
		}
	}
	if again > 1 {
		t.Fatalf("polls %v: want every project of the wave but one polled once", svc.pollCounts())
	}
}
