package api

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// TestOnThrottledNamesTheReason: a request over the rate limit is reported
// as ThrottledRate, a project over the concurrent cap as
// ThrottledConcurrent, and answers that are not 429s are not reported.
func TestOnThrottledNamesTheReason(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	var reasons []string
	// AllowPrivateImports: the link is not resolved at create.
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test", AllowPrivateImports: true,
		Limits:      quota.Limits{RateLimit: 2, MaxConcurrent: 1},
		Now:         func() time.Time { return t0 },
		OnThrottled: func(reason string) { reasons = append(reasons, reason) }})
	create := func() int {
		return send(t, h, http.MethodPost, "/api/clip-projects", key, `{"videoUrl": "https://www.youtube.com/watch?v=abc"}`).Code
	}
	// Without a Runner the first project stays QUEUED, in flight.
	if code := create(); code != http.StatusCreated {
		t.Fatalf("first create: %d", code)
	}
	if code := create(); code != http.StatusTooManyRequests {
		t.Fatalf("second create: %d, want 429 (concurrent cap)", code)
	}
	if code := create(); code != http.StatusTooManyRequests {
		t.Fatalf("third create: %d, want 429 (rate limit)", code)
	}
	if want := []string{ThrottledConcurrent, ThrottledRate}; !slices.Equal(reasons, want) {
		t.Errorf("reported %q, want %q", reasons, want)
	}
}
