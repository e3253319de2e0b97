package acctest

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// callCounter counts every request its proxies pass to clipperd, by kind.
// With collectionPage set, they make clipperd page the account's
// collections that many to a page (a service with small pages). With quiet
// set, they stand for a strict service: they keep its rate window
// themselves and say it only in their 429s.
type callCounter struct {
	upstream       *url.URL
	collectionPage int
	quiet          *quietWindow

	mu    sync.Mutex
	calls map[string]int
}

// Kinds of call a refresh makes.
const (
	callCollectionPage = "collection pages"
	callContentListing = "content listings (findByCollectionId)"
	callClipListing    = "clip listings (findByProjectId)"
	callProjectRead    = "project reads"
	callOther          = "other"
	// callRefused counts the answers that were 429s, among the calls above.
	callRefused = "429s"
)

func newCallCounter(t *testing.T, upstream string, collectionPage int) *callCounter {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	cc := &callCounter{upstream: target, collectionPage: collectionPage}
	cc.reset()
	return cc
}

// proxy starts another proxy counting into cc and returns its address. The
// client shares its state (clip listings, rate limiter) per process and base
// address: a provider configured with a new proxy's address starts cold, as
// a new provider process of a Terraform command does.
func (cc *callCounter) proxy(t *testing.T) string {
	t.Helper()
	forward := httputil.NewSingleHostReverseProxy(cc.upstream)
	if cc.quiet != nil {
		forward.ModifyResponse = func(resp *http.Response) error {
			// clipperd's own window (600 a minute) is not the one kept here.
			for _, h := range []string{"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				resp.Header.Del(h)
			}
			return nil
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cc.count(r)
		if cc.quiet != nil && !cc.quiet.admit(w, r) {
			cc.mu.Lock()
			cc.calls[callRefused]++
			cc.mu.Unlock()
			return
		}
		if cc.collectionPage > 0 && r.URL.Path == "/api/collections" && r.Method == http.MethodGet {
			q := r.URL.Query()
			q.Set("limit", fmt.Sprint(cc.collectionPage))
			r.URL.RawQuery = q.Encode()
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (cc *callCounter) reset() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.calls = map[string]int{}
}

func (cc *callCounter) count(r *http.Request) {
	q := r.URL.Query()
	kind := callOther
	switch {
	case r.Method != http.MethodGet:
	case r.URL.Path == "/api/collections":
		kind = callCollectionPage
	case r.URL.Path == "/api/exportable-clips" && q.Get("q") == "findByCollectionId":
		kind = callContentListing
	case r.URL.Path == "/api/exportable-clips":
		kind = callClipListing
	case strings.HasPrefix(r.URL.Path, "/api/clip-projects/"):
		kind = callProjectRead
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.calls[kind]++
}

// counts returns the calls of each kind and their total.
func (cc *callCounter) counts() (map[string]int, int) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	out, total := map[string]int{}, 0
	for k, n := range cc.calls {
		out[k] = n
		if k != callRefused {
			total += n
		}
	}
	return out, total
}

// quietWindow is the rate window of a strict service: limit requests per
// span per key on the project and clip endpoints, a sliding-window log like
// clipperd's, refused with a 429 that carries Retry-After and the
// X-RateLimit-* headers, which no other answer carries. The first request
// it sees finds the window full, as the plan right after an apply does: one
// request of span/2 ago, the rest just now, so that the 429's Retry-After
// frees one slot and not the window.
type quietWindow struct {
	limit int
	span  time.Duration

	mu     sync.Mutex
	sent   []time.Time // oldest first
	lifted bool        // the refresh was counted: let the step's plan through
}

// lift opens the window for good. The refresh under test is counted by
// then, and the plan Terraform makes after it would otherwise wait out
// windows that test nothing.
func (q *quietWindow) lift() {
	q.mu.Lock()
	q.lifted = true
	q.mu.Unlock()
}

// admit lets r through, or answers it with a 429 and returns false.
func (q *quietWindow) admit(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/api/clip-projects") && !strings.HasPrefix(r.URL.Path, "/api/exportable-clips") {
		return true
	}
	q.mu.Lock()
	if q.lifted {
		q.mu.Unlock()
		return true
	}
	now := time.Now()
	if q.sent == nil {
		q.sent = append(q.sent, now.Add(-q.span/2))
		for range q.limit - 1 {
			q.sent = append(q.sent, now)
		}
	}
	for len(q.sent) > 0 && now.Sub(q.sent[0]) >= q.span {
		q.sent = q.sent[1:]
	}
	if len(q.sent) < q.limit {
		q.sent = append(q.sent, now)
		q.mu.Unlock()
		return true
	}
	reset := q.sent[0].Add(q.span)
	q.mu.Unlock()
	h := w.Header()
	h.Set("Retry-After", fmt.Sprint(int64((reset.Sub(now)+time.Second-1)/time.Second)))
	h.Set("X-RateLimit-Limit", fmt.Sprint(q.limit))
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", fmt.Sprint(reset.Unix()+1))
	writeAPIError(w, http.StatusTooManyRequests, "TooManyRequests", "rate limit exceeded")
	return false
}

func (cc *callCounter) String() string {
	counts, total := cc.counts()
	var parts []string
	for k, n := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%d calls: %s", total, strings.Join(parts, ", "))
}

// refreshConfig is projects clip projects (one clip each, the whole shared
// video), collections collections and two contents in each: collection j
// holds the clips of projects j*projects/collections and the next one. With
// dataSources every project's clips are also read by a clips data source,
// which the contents take their ids from, as configurations written before
// clipper_clip_project had clips did.
func refreshConfig(env accEnv, projects, collections int, dataSources bool) string {
	clips := "clipper_clip_project.p[%s].clips"
	extra := ""
	if dataSources {
		clips = "data.clipper_exportable_clips.p[%s].clips"
		extra = fmt.Sprintf(`
data "clipper_exportable_clips" "p" {
  count      = %d
  project_id = clipper_clip_project.p[count.index].id
}
`, projects)
	}
	first := fmt.Sprintf(clips, fmt.Sprintf("floor(count.index * %d / %d)", projects, collections))
	second := fmt.Sprintf(clips, fmt.Sprintf("(floor(count.index * %d / %d) + 1) %% %d", projects, collections, projects))
	// base_url from CLIPPER_BASE_URL, which each step points at a new proxy.
	return fmt.Sprintf(`
provider "clipper" {
  api_key             = %[7]q
  requests_per_minute = 600
}

resource "clipper_clip_project" "p" {
  count       = %[1]d
  source_file = %[3]q
  title       = "refresh ${count.index}"
  curation = {
    skip_curate = true
  }
  render = {
    layout_aspect_ratio = "square"
  }
}
%[4]s
resource "clipper_collection" "c" {
  count = %[2]d
  name  = "refresh calls ${count.index}"
}

resource "clipper_collection_content" "first" {
  count         = %[2]d
  collection_id = clipper_collection.c[count.index].id
  content_id    = %[5]s[0].id
}

resource "clipper_collection_content" "second" {
  count         = %[2]d
  collection_id = clipper_collection.c[count.index].id
  content_id    = %[6]s[0].id
}
`, projects, collections, env.Video, extra, first, second, accAPIKey)
}

// refreshWant is what one refresh must read at least, by kind of call, and
// how many calls over that it may make.
type refreshWant struct {
	calls map[string]int
	extra int
}

// minimum is the fewest calls the refresh needs.
func (w refreshWant) minimum() int {
	n := 0
	for _, c := range w.calls {
		n += c
	}
	return n
}

// check fails when the refresh counted by cc read less than w.calls, or
// made more than their sum plus w.extra calls, or was refused more than
// once.
func (w refreshWant) check(t *testing.T, name string, cc *callCounter) error {
	counts, total := cc.counts()
	t.Logf("%s: %s (minimum %d)", name, cc, w.minimum())
	for kind, n := range w.calls {
		if counts[kind] < n {
			return fmt.Errorf("%s: %s: %d, fewer than the %d the refresh needs: did it read everything? %s", name, kind, counts[kind], n, cc)
		}
	}
	if total > w.minimum()+w.extra {
		return fmt.Errorf("%s: the refresh made %s; want at most the minimum %d plus %d", name, cc, w.minimum(), w.extra)
	}
	if counts[callRefused] > 1 {
		return fmt.Errorf("%s: %d calls refused (429); want at most one: %s", name, counts[callRefused], cc)
	}
	return nil
}

// A refresh of 4 COMPLETE projects, 20 collections and 40 contents, each
// in a new provider process (Terraform's plan after an apply):
//   - against a service that lists collections 2 to a page, the project
//     calls (reads, clip listings) stay within 1.2 per project beside the
//     collection calls (10 pages, 20 listings of their clips): the clips
//     listed at the apply are kept, their addresses valid for days;
//   - against a strict service, which keeps 30 requests in 20 s and says so
//     only in its 429s, whose window an apply has just filled: the minimum
//     (34) plus one refused request, not one per request in flight;
//   - with clips data sources beside the projects: each data source lists
//     its project's clips (a data source has no state to keep them in),
//     the project's refresh listing nothing more.
func TestAccRefreshCalls_smallPages(t *testing.T) {
	// A clipperd of its own (its clock left as the wall clock): the pages
	// counted are of this test's collections alone, not of those other
	// tests keep in the shared server's organization meanwhile.
	env, _ := testAccClockSetup(t)
	const projects, collections, page = 4, 20, 2
	perProject := (projects*12 + 9) / 10 // ceil(1.2 N)
	collectionCalls := map[string]int{callCollectionPage: collections / page, callContentListing: collections}
	with := func(m map[string]int) map[string]int {
		out := maps.Clone(collectionCalls)
		maps.Copy(out, m)
		return out
	}
	// After the apply: a read per project, and the projects' share of
	// 1.2 calls each for the rest (clip listings).
	managed := refreshWant{calls: with(map[string]int{callProjectRead: projects}), extra: perProject - projects}
	strict := refreshWant{calls: with(map[string]int{callProjectRead: projects}), extra: 1}
	dataSources := refreshWant{calls: with(map[string]int{callProjectRead: projects, callClipListing: projects}), extra: 1}

	counter := newCallCounter(t, env.URL, page)
	quiet := newCallCounter(t, env.URL, page)
	quiet.quiet = &quietWindow{limit: 30, span: 20 * time.Second} // a short span: the rule is the same, the wait a third
	// cold points the provider at a new proxy of cc and counts from zero.
	cold := func(cc *callCounter) func() {
		return func() {
			t.Setenv("CLIPPER_BASE_URL", cc.proxy(t))
			cc.reset()
		}
	}
	check := func(name string, w refreshWant, cc *callCounter) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if cc.quiet != nil {
				defer cc.quiet.lift()
			}
			return w.check(t, name, cc)
		}
	}
	// The same projects, collections and contents, their ids taken from
	// the projects' clips, then also read by clips data sources.
	withoutDS := refreshConfig(env, projects, collections, false)
	withDS := refreshConfig(env, projects, collections, true)
	t.Setenv("CLIPPER_BASE_URL", counter.proxy(t))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{Config: withoutDS},
			{PreConfig: cold(counter), RefreshState: true, Check: check("small pages", managed, counter)},
			{PreConfig: cold(quiet), RefreshState: true, Check: check("strict service, full window", strict, quiet)},
			// Back to the lenient proxy: the strict window would hold this
			// apply's hundred-odd requests for minutes and test nothing.
			{PreConfig: cold(counter), Config: withDS},
			{PreConfig: cold(counter), RefreshState: true, Check: check("clips data sources", dataSources, counter)},
		},
	})
}
