package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

// fakeListings answers the two listings collectionCache reads, as the spec
// shapes them, and counts the requests: "mine" for GET /api/collections?q=mine
// (pages of two, chained by `next`), the collection id for its clip listing.
type fakeListings struct {
	mu          sync.Mutex
	collections []string
	clips       map[string][]string // collection id -> content ids
	calls       map[string]int
	failNext    int // answer that many requests 400
	// arrived, when set, runs for each request after the answer is taken
	// and before it is sent; a test holds a request there.
	arrived func(r *http.Request, call int)
}

const fakeCollectionPage = 2

func newFakeListings(t *testing.T, collections ...string) (*fakeListings, *collectionCache) {
	t.Helper()
	f := &fakeListings{collections: collections, clips: map[string][]string{}, calls: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, APIKey: "cache-test-key", RequestsPerMinute: 100000})
	if err != nil {
		t.Fatal(err)
	}
	return f, newCollectionCache(c)
}

func (f *fakeListings) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	key := "mine"
	if r.URL.Path == "/api/exportable-clips" {
		key = q.Get("collectionId")
	}
	f.mu.Lock()
	f.calls[key]++
	call := f.calls[key]
	status, body := f.answer(r.URL.Path, q)
	if f.failNext > 0 {
		f.failNext--
		status, body = http.StatusBadRequest, map[string]any{"errorName": "Bad Request", "errorMessage": "refused by the test"}
	}
	arrived := f.arrived
	f.mu.Unlock()
	if arrived != nil {
		arrived(r, call)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// answer builds the answer to a listing from the current data; f.mu is held.
func (f *fakeListings) answer(path string, q map[string][]string) (int, any) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if path == "/api/collections" {
		offset, _ := strconv.Atoi(get("next"))
		end := min(offset+fakeCollectionPage, len(f.collections))
		page := apitypes.CollectionPage{Total: len(f.collections)}
		for _, id := range f.collections[offset:end] {
			page.List = append(page.List, apitypes.Collection{CollectionID: id, CollectionName: "name of " + id})
		}
		if end < len(f.collections) {
			page.Next = strconv.Itoa(end)
		}
		return http.StatusOK, apitypes.Envelope[apitypes.CollectionPage]{Data: page}
	}
	ids, ok := f.clips[get("collectionId")]
	if !ok {
		return http.StatusNotFound, map[string]any{"errorName": "Not Found", "errorMessage": "collection not found"}
	}
	pageNum, _ := strconv.Atoi(get("pageNum"))
	pageSize, _ := strconv.Atoi(get("pageSize"))
	start := min((pageNum-1)*pageSize, len(ids))
	clips := []apitypes.ExportableClip{}
	for _, id := range ids[start:min(start+pageSize, len(ids))] {
		clips = append(clips, apitypes.ExportableClip{ID: id})
	}
	return http.StatusOK, clips
}

func (f *fakeListings) callsOf(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

func (f *fakeListings) set(update func(f *fakeListings)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	update(f)
}

// Many collections read at once cost one listing: its pages, once.
func TestCollectionCacheSharesOneListing(t *testing.T) {
	ids := []string{"col_a", "col_b", "col_c"}
	f, cache := newFakeListings(t, ids...)
	ctx := t.Context()

	var wg sync.WaitGroup
	errs := make(chan error, 30)
	for i := range 30 {
		wg.Go(func() {
			id := ids[i%len(ids)]
			col, found, err := cache.collection(ctx, id)
			switch {
			case err != nil:
				errs <- err
			case !found || col.CollectionName != "name of "+id:
				errs <- fmt.Errorf("collection %s: found %t, %+v", id, found, col)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, found, err := cache.collection(ctx, "col_gone"); err != nil || found {
		t.Errorf("a collection the service lacks: found %t, err %v", found, err)
	}
	// Three collections in pages of two: two requests for all 31 readers.
	if n := f.callsOf("mine"); n != 2 {
		t.Errorf("%d requests for the listing, want 2 (its two pages, once)", n)
	}
}

// The clip listing is kept per collection; a 404 is kept as "no such
// collection", shared like a listing.
func TestCollectionCacheContentsPerCollection(t *testing.T) {
	f, cache := newFakeListings(t)
	f.set(func(f *fakeListings) {
		f.clips["col_a"] = []string{"p1.c01", "p1.c02"}
		f.clips["col_b"] = []string{"p2.c01"}
	})
	ctx := t.Context()

	var wg sync.WaitGroup
	results := make([]collectionContents, 30)
	errs := make([]error, 30)
	order := []string{"col_a", "col_b", "col_gone"}
	for i := range 30 {
		wg.Go(func() { results[i], errs[i] = cache.contentsOf(ctx, order[i%3]) })
	}
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("contents of %s: %v", order[i%3], errs[i])
		}
		switch id := order[i%3]; id {
		case "col_a":
			if !r.exists || !r.ids["p1.c01"] || !r.ids["p1.c02"] || len(r.ids) != 2 {
				t.Errorf("contents of %s: %+v", id, r)
			}
		case "col_gone":
			if r.exists {
				t.Errorf("contents of a collection the service lacks: %+v", r)
			}
		}
	}
	for _, id := range order {
		if n := f.callsOf(id); n != 1 {
			t.Errorf("%d clip listings of %s, want 1", n, id)
		}
	}
}

// A write through the provider makes the next reader list again, and only
// the listing the write touched.
func TestCollectionCacheWritesInvalidate(t *testing.T) {
	f, cache := newFakeListings(t, "col_a")
	f.set(func(f *fakeListings) {
		f.clips["col_a"] = []string{"p1.c01"}
		f.clips["col_b"] = nil
	})
	ctx := t.Context()
	mustContents := func(id string) collectionContents {
		t.Helper()
		c, err := cache.contentsOf(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if _, err := cache.collections(ctx); err != nil {
		t.Fatal(err)
	}
	mustContents("col_a")
	mustContents("col_b")

	// A collection created: the account's listing is read again.
	f.set(func(f *fakeListings) { f.collections = append(f.collections, "col_b") })
	cache.forget()
	if _, found, err := cache.collection(ctx, "col_b"); err != nil || !found {
		t.Fatalf("col_b after the create: found %t, err %v", found, err)
	}
	if n := f.callsOf("mine"); n != 2 {
		t.Errorf("%d listings of the account's collections, want 2", n)
	}

	// A clip added to col_b: its listing is read again, col_a's is kept;
	// the account's listing too, since col_b's updatedAt moved.
	f.set(func(f *fakeListings) { f.clips["col_b"] = []string{"p2.c01"} })
	cache.forget("col_b")
	if c := mustContents("col_b"); !c.ids["p2.c01"] {
		t.Errorf("col_b after the add: %+v", c)
	}
	mustContents("col_a")
	if _, err := cache.collections(ctx); err != nil {
		t.Fatal(err)
	}
	if a, b, m := f.callsOf("col_a"), f.callsOf("col_b"), f.callsOf("mine"); a != 1 || b != 2 || m != 3 {
		t.Errorf("clip listings: col_a %d (want 1), col_b %d (want 2); account listings %d (want 3)", a, b, m)
	}

	// A collection deleted: the account's listing and its contents go.
	f.set(func(f *fakeListings) {
		f.collections = f.collections[:1]
		delete(f.clips, "col_b")
	})
	cache.forget("col_b")
	if c := mustContents("col_b"); c.exists {
		t.Errorf("col_b after its delete: %+v", c)
	}
	if _, found, err := cache.collection(ctx, "col_b"); err != nil || found {
		t.Errorf("col_b after its delete: found %t, err %v", found, err)
	}
	if m, b := f.callsOf("mine"), f.callsOf("col_b"); m != 4 || b != 3 {
		t.Errorf("after the delete: %d account listings (want 4), %d of col_b (want 3)", m, b)
	}
}

// A listing that began before a write may miss it: readers after the write
// do not join it, and its answer, arriving last, does not replace theirs.
func TestCollectionCacheLoadBeforeWriteIsNotKept(t *testing.T) {
	f, cache := newFakeListings(t, "col_a")
	ctx := t.Context()
	held, release := make(chan struct{}), make(chan struct{})
	f.set(func(f *fakeListings) {
		f.arrived = func(_ *http.Request, call int) {
			if call == 1 {
				close(held)
				<-release
			}
		}
	})

	before := make(chan []apitypes.Collection, 1)
	go func() {
		list, err := cache.collections(ctx)
		if err != nil {
			t.Error(err)
		}
		before <- list
	}()
	<-held // the first listing has its answer (col_a only) and waits

	f.set(func(f *fakeListings) { f.collections = append(f.collections, "col_b") })
	cache.forget()
	after, err := cache.collections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	close(release)
	if got := <-before; len(got) != 1 {
		t.Errorf("the reader before the write got %d collections, want the 1 of its listing", len(got))
	}
	if len(after) != 2 {
		t.Errorf("the reader after the write got %d collections, want 2", len(after))
	}
	kept, err := cache.collections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || f.callsOf("mine") != 2 {
		t.Errorf("kept %d collections after %d listings; want the 2 of the listing after the write, and no third listing",
			len(kept), f.callsOf("mine"))
	}
}

// signalDone is a context that reports the first call of Done: a reader
// calls it when it starts waiting for another reader's listing.
type signalDone struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

func (c *signalDone) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// The reader whose listing others wait for is cancelled: it fails, and a
// waiter whose own context lives lists again instead of failing with it.
func TestCollectionCacheWaiterOutlivesCancelledReader(t *testing.T) {
	f, cache := newFakeListings(t, "col_a")
	arrived := make(chan struct{})
	f.set(func(f *fakeListings) {
		f.arrived = func(r *http.Request, call int) {
			if call == 1 {
				close(arrived)
				<-r.Context().Done() // answer only once the reader gave up
			}
		}
	})

	leaderCtx, cancel := context.WithCancel(t.Context())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := cache.collections(leaderCtx)
		leaderErr <- err
	}()
	<-arrived

	waiterCtx := &signalDone{Context: t.Context(), waiting: make(chan struct{})}
	waiterDone := make(chan error, 1)
	var got []apitypes.Collection
	go func() {
		var err error
		got, err = cache.collections(waiterCtx)
		waiterDone <- err
	}()
	<-waiterCtx.waiting // the waiter waits for the first reader's listing
	cancel()

	if err := <-leaderErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled reader got %v, want context.Canceled", err)
	}
	if err := <-waiterDone; err != nil || len(got) != 1 {
		t.Fatalf("the waiter got %v, %d collections; want the listing it made itself", err, len(got))
	}
	if n := f.callsOf("mine"); n != 2 {
		t.Errorf("%d listings, want 2: the cancelled one and the waiter's", n)
	}
}

// A failed listing is not kept: the next reader asks again.
func TestCollectionCacheErrorsAreNotKept(t *testing.T) {
	f, cache := newFakeListings(t, "col_a")
	f.set(func(f *fakeListings) { f.failNext = 1 })
	ctx := t.Context()
	if _, err := cache.collections(ctx); !errorIsStatus(err, http.StatusBadRequest) {
		t.Fatalf("first listing: %v, want the 400", err)
	}
	if _, found, err := cache.collection(ctx, "col_a"); err != nil || !found {
		t.Fatalf("second listing: found %t, err %v", found, err)
	}
	if n := f.callsOf("mine"); n != 2 {
		t.Errorf("%d listings, want 2", n)
	}
}

func errorIsStatus(err error, status int) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.StatusCode == status
}
