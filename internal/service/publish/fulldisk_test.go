package publish

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest/stores"
)

// On a full disk the scheduler's passes fail; it backs off on the failure
// curve (one log line per failure, the waits doubling) instead of trying,
// and logging, every MaxWait, and fires every schedule once space is back.
func TestSchedulerBacksOffOnAFullDisk(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	account := e.account(store.PublishToDir)
	var due []*store.Schedule
	for range 200 {
		due = append(due, e.schedule(account, e.clock().Add(time.Minute)))
	}
	stores.Fill(t, e.st)
	e.advance(time.Hour)

	logged := &errorLog{records: make(chan slog.Record, 100)}
	s, err := NewScheduler(SchedulerConfig{Store: e.st, MaxWait: 10 * time.Millisecond, Logger: slog.New(logged)})
	if err != nil {
		t.Fatal(err)
	}
	s.loop.FailureBase, s.loop.FailureMax = 5*time.Millisecond, 40*time.Millisecond
	s.Start(ctx)
	t.Cleanup(s.Stop)

	// Every error line is one failed pass, and the waits between them double.
	for i := range 6 {
		select {
		case r := <-logged.records:
			attrs := map[string]slog.Value{}
			r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value; return true })
			want := min(5*time.Millisecond<<i, 40*time.Millisecond)
			cause, _ := attrs["err"].Any().(error)
			if attrs["failures"].Int64() != int64(i+1) || attrs["retryIn"].Duration() != want || !store.IsFull(cause) {
				t.Fatalf("error line %d: %s %v, want failures=%d retryIn=%s and the full disk", i+1, r.Message, attrs, i+1, want)
			}
		case <-time.After(waitLimit):
			t.Fatalf("failure %d never logged", i+1)
		}
	}
	if err := e.st.LimitSize(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, sc := range due {
		e.fired(sc.ID)
	}
	if pending, err := e.st.PendingPosts(ctx); err != nil || len(pending) != len(due) {
		t.Fatalf("posts made: %d %v, want one per schedule", len(pending), err)
	}
}

// errorLog hands the error records of a logger to a test.
type errorLog struct{ records chan slog.Record }

func (l *errorLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelError }
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	l.records <- r.Clone()
	return nil
}
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }
