package acctest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// listingCounter sits between the provider and clipperd and counts the
// listings the collection cache makes: the q=mine listings begun (their
// first pages) and the clip listings of each collection.
type listingCounter struct {
	mu           sync.Mutex
	mineListings int
	clipListings map[string]int
}

func (lc *listingCounter) reset() {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	lc.mineListings, lc.clipListings = 0, map[string]int{}
}

func (lc *listingCounter) count(r *http.Request) {
	q := r.URL.Query()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	switch {
	case r.URL.Path == "/api/collections" && q.Get("q") == "mine" && q.Get("next") == "":
		lc.mineListings++
	case r.URL.Path == "/api/exportable-clips" && q.Get("q") == "findByCollectionId":
		lc.clipListings[q.Get("collectionId")]++
	}
}

// One refresh of five collections, each holding the shared clip, makes one
// listing of the account's collections and one clip listing per collection.
func TestAccCollectionCache_refresh(t *testing.T) {
	env := testAccSetup(t)
	_, clips := env.completeProject(t)
	target, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	counter := &listingCounter{}
	counter.reset()
	forward := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		counter.count(r)
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	config := accEnv{URL: proxy.URL}.providerBlock() + fmt.Sprintf(`
resource "clipper_collection" "many" {
  count = 5
  name  = "acc refresh ${count.index}"
}

resource "clipper_collection_content" "clip" {
  count         = 5
  collection_id = clipper_collection.many[count.index].id
  content_id    = %q
}
`, clips[0].ID)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders(),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig:    counter.reset,
				RefreshState: true,
				// Runs right after the refresh, before any other command.
				Check: func(s *terraform.State) error {
					counter.mu.Lock()
					defer counter.mu.Unlock()
					if counter.mineListings != 1 {
						return fmt.Errorf("refreshing 5 collections began %d listings of the account's collections, want 1", counter.mineListings)
					}
					for i := range 5 {
						id := s.RootModule().Resources[fmt.Sprintf("clipper_collection.many.%d", i)].Primary.ID
						if n := counter.clipListings[id]; n != 1 {
							return fmt.Errorf("collection %s: %d clip listings, want 1", id, n)
						}
					}
					if len(counter.clipListings) != 5 {
						return fmt.Errorf("clip listings of %d collections, want the 5: %v", len(counter.clipListings), counter.clipListings)
					}
					return nil
				},
			},
		},
	})
}
