package publish

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

func (e *env) startScheduler(enqueue func(*store.Post) store.TxHook) *Scheduler {
	e.t.Helper()
	s, err := NewScheduler(SchedulerConfig{Store: e.st, MaxWait: 10 * time.Millisecond, Enqueue: enqueue})
	if err != nil {
		e.t.Fatal(err)
	}
	s.Start(context.Background())
	e.t.Cleanup(s.Stop)
	return s
}

func (e *env) schedule(account string, at time.Time) *store.Schedule {
	e.t.Helper()
	sc, err := e.st.CreateSchedule(context.Background(), testOrg, e.content(account), at)
	if err != nil {
		e.t.Fatal(err)
	}
	return sc
}

// fired waits until schedule id has fired and returns its post id.
func (e *env) fired(id string) string {
	e.t.Helper()
	var sc *store.Schedule
	storetest.Eventually(e.t, "schedule "+id+" fired", func() bool {
		var err error
		if sc, err = e.st.GetSchedule(context.Background(), id); err != nil {
			e.t.Fatal(err)
		}
		return sc.Status == store.ScheduleFired
	})
	return sc.PostID
}

func TestScheduleFiresAtItsTimeAndTheWorkerPublishesIt(t *testing.T) {
	e := newEnv(t)
	account := e.account(store.PublishToDir)
	sc := e.schedule(account, e.clock().Add(time.Hour))
	w, _ := e.startWorker(WorkerConfig{}) // the scheduler gives the post its job
	e.startScheduler(w.Enqueue)

	e.advance(time.Hour)
	postID := e.fired(sc.ID)
	p := e.settled(postID)
	if p.Status != store.PostPublished || p.ScheduleID != sc.ID || p.CreditsCharged != 1 {
		t.Fatalf("post = %+v, want published from schedule %s and charged a credit", p, sc.ID)
	}
	if _, err := os.Stat(filepath.Join(e.dataDir, "published", account, postID, "clip.mp4")); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(e.dataDir, "published", account, postID, "post.json"))
	if err != nil || !strings.Contains(string(doc), `"scheduleId": "`+sc.ID+`"`) {
		t.Fatalf("post.json = %s %v, want the scheduleId", doc, err)
	}
}

// A schedule that came due while no scheduler ran fires on the first pass
// of the next one, once: another start does not fire it again.
func TestScheduleDueWhileStoppedFiresOnceOnStart(t *testing.T) {
	e := newEnv(t)
	account := e.account(store.PublishToDir)
	missed := e.schedule(account, e.clock().Add(time.Minute))
	e.advance(2 * time.Hour)

	first := e.startScheduler(nil)
	postID := e.fired(missed.ID)
	first.Stop()

	// A later schedule is the witness that the next scheduler ran a pass.
	witness := e.schedule(account, e.clock().Add(time.Minute))
	e.advance(time.Minute)
	e.startScheduler(nil)
	e.fired(witness.ID)
	if again, _ := e.st.GetSchedule(context.Background(), missed.ID); again.PostID != postID {
		t.Fatalf("the missed schedule's post changed from %s to %s", postID, again.PostID)
	}
	if pending, _ := e.st.PendingPosts(context.Background()); len(pending) != 2 {
		t.Fatalf("posts made: %d, want one per schedule", len(pending))
	}
}

func TestCancelledScheduleNeverFires(t *testing.T) {
	e := newEnv(t)
	account := e.account(store.PublishToDir)
	cancelled := e.schedule(account, e.clock().Add(time.Minute))
	witness := e.schedule(account, e.clock().Add(2*time.Minute))
	if err := e.st.CancelSchedule(context.Background(), testOrg, cancelled.ID); err != nil {
		t.Fatal(err)
	}
	e.advance(time.Hour)
	e.startScheduler(nil)
	// The witness, due after the cancelled one, fires: the cancelled one had its turn.
	e.fired(witness.ID)
	sc, err := e.st.GetSchedule(context.Background(), cancelled.ID)
	if err != nil || sc.Status != store.ScheduleCancelled || sc.PostID != "" {
		t.Fatalf("cancelled schedule = %+v %v", sc, err)
	}
}
