package repeat

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// Jobs left by an earlier process run first, then submitted ones; a second
// Start is refused; after Stop the queue starts again.
func TestQueueRunsLeftThenSubmittedJobs(t *testing.T) {
	var q Queue
	var mu sync.Mutex
	var ran []string
	done := make(chan struct{}, 8)
	run := func(_ context.Context, id string) {
		mu.Lock()
		ran = append(ran, id)
		mu.Unlock()
		done <- struct{}{}
	}
	q.Submit("submitted-early")
	if err := q.Start(t.Context(), []string{"left-1", "left-2"}, run); err != nil {
		t.Fatal(err)
	}
	if err := q.Start(t.Context(), nil, run); !errors.Is(err, ErrStarted) {
		t.Fatalf("second Start = %v, want ErrStarted", err)
	}
	q.Submit("later")
	for range 4 {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("jobs run so far: %v", ran)
		}
	}
	q.Stop()
	mu.Lock()
	got := append([]string(nil), ran...)
	mu.Unlock()
	want := []string{"left-1", "left-2", "submitted-early", "later"}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("ran %v, want %v", got, want)
		}
	}
	if err := q.Start(t.Context(), nil, run); err != nil {
		t.Fatalf("Start after Stop: %v", err)
	}
	q.Stop()
}
