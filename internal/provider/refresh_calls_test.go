package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// callCounter counts every request its proxies pass to clipperd, by kind.
// With collectionPage set, they make clipperd page the account's
// collections that many to a page (a service with small pages).
type callCounter struct {
	upstream       *url.URL
	collectionPage int

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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cc.count(r)
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
		total += n
	}
	return out, total
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

// A refresh of 4 projects, 20 collections and 40 contents against a service
// that lists collections 2 to a page costs the minimum: each collection page
// once (10), each collection's clip listing once (20), each project read
// once (4) and its clips listed once (4), plus at most one call.
func TestAccRefreshCalls_smallPages(t *testing.T) {
	env := testAccSetup(t)
	const projects, collections, page = 4, 20, 2
	counter := newCallCounter(t, env.URL, page)
	want := map[string]int{callCollectionPage: collections / page, callContentListing: collections,
		callProjectRead: projects, callClipListing: projects}
	minimum := 0
	for _, n := range want {
		minimum += n
	}
	// cold points the provider at a new proxy and counts from zero.
	cold := func() {
		t.Setenv("CLIPPER_BASE_URL", counter.proxy(t))
		counter.reset()
	}
	check := func(*terraform.State) error {
		counts, total := counter.counts()
		t.Logf("refresh: %s (minimum %d)", counter, minimum)
		for kind, n := range want {
			if counts[kind] < n {
				return fmt.Errorf("%s: %d, fewer than the %d the refresh needs: did it read everything? %s", kind, counts[kind], n, counter)
			}
		}
		if total > minimum+1 {
			return fmt.Errorf("the refresh made %s; want at most the minimum %d plus one", counter, minimum)
		}
		return nil
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
			{PreConfig: cold, RefreshState: true, Check: check},
			{Config: withDS},
			{PreConfig: cold, RefreshState: true, Check: check},
		},
	})
}
