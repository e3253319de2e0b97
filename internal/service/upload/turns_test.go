package upload

import (
	"runtime"
	"testing"
)

// TestTurnsForget: an upload's entry goes away with its last request, so
// the map does not grow with every upload ever seen.
func TestTurnsForget(t *testing.T) {
	t.Parallel()
	var k turns
	_, releaseA := k.take("a", nil)
	_, releaseB := k.take("b", nil) // another upload does not wait for a
	if len(k.m) != 2 {
		t.Fatalf("%d uploads held, want 2", len(k.m))
	}
	releaseA()
	releaseB()
	if len(k.m) != 0 {
		t.Errorf("%d uploads left after every release, want 0", len(k.m))
	}
}

// TestTurnsNewestWins: a request arriving interrupts the one working, and
// of two waiting only the newer keeps its turn.
func TestTurnsNewestWins(t *testing.T) {
	t.Parallel()
	var k turns
	interrupts := make(chan struct{}, 2)
	first, release := k.take("a", func() { interrupts <- struct{}{} })
	type turnOf struct {
		c       *claim
		release func()
	}
	waiting := make(chan turnOf, 2)
	for range 2 {
		go func() {
			c, rel := k.take("a", nil)
			waiting <- turnOf{c, rel}
		}()
	}
	<-interrupts // the first to arrive interrupted the working request
	for arrived := false; !arrived; runtime.Gosched() {
		k.mu.Lock()
		arrived = k.m["a"].refs == 3
		k.mu.Unlock()
	}
	if !first.takenOver() {
		t.Error("the working request was not taken over")
	}
	release()
	a := <-waiting
	a.release()
	b := <-waiting
	b.release()
	if a.c.takenOver() == b.c.takenOver() {
		t.Errorf("of two waiting requests taken over: %v and %v, want exactly the older one", a.c.takenOver(), b.c.takenOver())
	}
	if len(interrupts) != 0 {
		t.Errorf("the working request was interrupted %d more times, want once", len(interrupts))
	}
}
