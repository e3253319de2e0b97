package acctest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// Tests in which a schedule's time must pass do not wait for the wall clock
// and do not race it: they schedule an hour ahead, far more than any plan and
// apply take on a loaded machine, then move a clock that their own clipperd
// and provider share past that time.

// testClock is the wall clock moved forward by the test.
type testClock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the wall-clock time plus what the test has moved the clock by.
func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// PassTo moves the clock, when it is earlier, to just after t.
func (c *testClock) PassTo(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := time.Until(t) + time.Millisecond; d > c.offset {
		c.offset = d
	}
}

// scheduleAhead is how far ahead the tests that move the clock schedule.
const scheduleAhead = time.Hour

// testAccClockSetup starts a clipperd of the test's own, whose clock the
// test moves (moving the shared server's clock would expire other tests'
// links and schedules), with the shared setup's video and social accounts.
// Its providers share the clock.
func testAccClockSetup(t *testing.T) (accEnv, *testClock) {
	t.Helper()
	shared := testAccSetup(t)
	dir := t.TempDir()
	clock := &testClock{}
	cfg := accServerConfig("127.0.0.1:0", filepath.Join(dir, "data"), quota.Limits{})
	cfg.Now = clock.Now
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	srv, err := startClipperdWith(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing clipperd: %v", err)
		}
	})
	if err := seedSocialAccounts(ctx, cfg.DataDir); err != nil {
		t.Fatal(err)
	}
	return accEnv{URL: srv.URL(), DataDir: cfg.DataDir, Video: shared.Video, Dir: dir}, clock
}

// testAccClockProviders is testAccProviders checking publish times against
// clock.
func testAccClockProviders(clock *testClock) map[string]func() (tfprotov6.ProviderServer, error) {
	return testAccProvidersWith(clock.Now)
}

// ownCompleteProject makes a COMPLETE project on env's server, as
// completeProject does on the shared one.
func ownCompleteProject(t *testing.T, env accEnv) []apitypes.ExportableClip {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	_, clips, err := makeCompleteProject(ctx, env.apiClient(t), env.Video)
	if err != nil {
		t.Fatalf("a project on the test's clipperd: %v", err)
	}
	if len(clips) == 0 {
		t.Fatal("the project on the test's clipperd has no clips")
	}
	return clips
}
