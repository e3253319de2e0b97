package client

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// fakeStorage is a resumable object store at the HTTP level: POST starts a
// session, PUTs with Content-Range append in order, `bytes */N` asks status.
// It hashes what it receives instead of keeping it, so large uploads cost it
// no memory.
type fakeStorage struct {
	t *testing.T

	mu       sync.Mutex
	received int64
	sum      hash.Hash
	puts     int
	queries  int
	starts   int
	authSeen []string
	// failAt makes the chunk starting at this offset fail once:
	// dropAfter >= 0 reads that many bytes then drops the connection,
	// dropAfter < 0 answers 503 without reading.
	failAt    int64
	dropAfter int64
	failed    bool
}

func newFakeStorage(t *testing.T) *fakeStorage {
	return &fakeStorage{t: t, sum: sha256.New(), failAt: -1}
}

func (s *fakeStorage) digest() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return hex.EncodeToString(s.sum.Sum(nil))
}

func (s *fakeStorage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.authSeen = append(s.authSeen, r.Header.Get("Authorization"))
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/bucket/up1":
		s.starts++
		if r.Header.Get(apitypes.HeaderResumable) != "start" || r.ContentLength != 0 || r.Header.Get("Content-Length") != "0" {
			s.t.Errorf("start request headers: %v (length %d)", r.Header, r.ContentLength)
		}
		// A relative location, resolved by the client against the upload url.
		w.Header().Set("Location", "/sessions/s1?upload_id=xyz")
		w.Header().Set(apitypes.HeaderResumableUploadID, "sess-1")
		w.WriteHeader(http.StatusCreated)
	case r.Method == http.MethodPut && r.URL.Path == "/sessions/s1" && r.URL.Query().Get("upload_id") == "xyz":
		s.put(w, r)
	default:
		s.t.Errorf("storage: unexpected %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusNotFound)
	}
}

func (s *fakeStorage) put(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/octet-stream" {
		s.t.Errorf("PUT Content-Type %q", ct)
	}
	cr := r.Header.Get("Content-Range")
	spec, ok := strings.CutPrefix(cr, "bytes ")
	rng, totalStr, ok2 := strings.Cut(spec, "/")
	total, err := strconv.ParseInt(totalStr, 10, 64)
	if !ok || !ok2 || err != nil {
		s.t.Errorf("bad Content-Range %q", cr)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if rng == "*" {
		s.queries++
		if r.ContentLength != 0 {
			s.t.Errorf("status query with a body of %d bytes", r.ContentLength)
		}
		s.answer(w, total)
		return
	}
	s.puts++
	a, b, _ := strings.Cut(rng, "-")
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || end < start || end >= total || r.ContentLength != end-start+1 {
		s.t.Errorf("bad chunk %q with length %d", cr, r.ContentLength)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if start != s.received {
		s.t.Errorf("chunk starts at %d, storage holds %d", start, s.received)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if start == s.failAt && !s.failed {
		s.failed = true
		if s.dropAfter < 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		n, _ := io.CopyN(s.sum, r.Body, s.dropAfter)
		s.received += n
		dropConnection(s.t, w)
		return
	}
	n, err := io.Copy(s.sum, r.Body)
	s.received += n
	if err != nil {
		return
	}
	s.answer(w, total)
}

// answer reports the session state: 201 when complete, else 308 with Range
// (none when nothing has arrived).
func (s *fakeStorage) answer(w http.ResponseWriter, total int64) {
	if s.received == total {
		w.WriteHeader(http.StatusCreated)
		return
	}
	if s.received > 0 {
		w.Header().Set("Range", fmt.Sprintf("bytes=0-%d", s.received-1))
	}
	w.WriteHeader(http.StatusPermanentRedirect)
}

// uploadAPI fakes /api/upload-links pointing at storageURL.
func uploadAPI(t *testing.T, storageURL string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/upload-links" {
			t.Errorf("api: unexpected %s %s", r.Method, r.URL)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if string(body) != `{"video":{"usecase":"LocalUpload"}}` {
			t.Errorf("upload link body %s", body)
		}
		writeJSON(w, 200, map[string]any{"data": apitypes.UploadLink{
			URL: storageURL + "/bucket/up1", UploadID: "upload-123", DNSURL: storageURL, TotalAmount: 1,
		}})
	}))
}

func randomFile(t *testing.T, size int) (string, string) {
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "video.mp4")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return path, hex.EncodeToString(sum[:])
}

// uploadRandom uploads a random file of size bytes in chunks of chunk bytes
// (0: the default) to a fake storage, checks what it stored, and returns it.
func uploadRandom(t *testing.T, chunk int64, size int) *fakeStorage {
	t.Helper()
	store := newFakeStorage(t)
	storage := httptest.NewServer(store)
	t.Cleanup(storage.Close)
	api := uploadAPI(t, storage.URL)
	t.Cleanup(api.Close)
	c := newTestClient(t, api.URL, nil)
	if chunk > 0 {
		c.chunkSize = chunk
	}
	path, want := randomFile(t, size)
	id, err := c.UploadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if id != "upload-123" {
		t.Fatalf("upload id %q, want the uploadId of the link", id)
	}
	if got := store.digest(); got != want {
		t.Fatal("stored bytes differ from the file")
	}
	return store
}

func TestUploadFileInChunks(t *testing.T) {
	store := uploadRandom(t, 64<<10, 300_000)
	if store.starts != 1 || store.puts != 5 || store.queries != 0 {
		t.Fatalf("starts %d puts %d queries %d", store.starts, store.puts, store.queries)
	}
	// The object store is another origin: it must never see the API key.
	for _, a := range store.authSeen {
		if a != "" {
			t.Fatalf("storage received Authorization %q", a)
		}
	}
}

func TestUploadResumesAfterDroppedConnection(t *testing.T) {
	store := newFakeStorage(t)
	store.failAt, store.dropAfter = 2*(64<<10), 10_000 // third chunk: 10 000 bytes arrive, then the link dies
	storage := httptest.NewServer(store)
	defer storage.Close()
	api := uploadAPI(t, storage.URL)
	defer api.Close()
	c := newTestClient(t, api.URL, nil)
	c.chunkSize = 64 << 10
	path, want := randomFile(t, 300_000)

	if _, err := c.UploadFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if store.digest() != want {
		t.Fatal("stored bytes differ from the file after resuming")
	}
	if store.queries != 1 || !store.failed || c.Stats().Retries != 1 {
		t.Fatalf("queries %d failed %v stats %+v", store.queries, store.failed, c.Stats())
	}
}

// A 503 before anything arrived: the status answer has no Range header, so
// the client starts again from byte 0.
func TestUploadResumesFromZeroAfter503(t *testing.T) {
	store := newFakeStorage(t)
	store.failAt, store.dropAfter = 0, -1
	storage := httptest.NewServer(store)
	defer storage.Close()
	api := uploadAPI(t, storage.URL)
	defer api.Close()
	c := newTestClient(t, api.URL, nil)
	c.chunkSize = 64 << 10
	path, want := randomFile(t, 100_000)

	if _, err := c.UploadFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if store.digest() != want || store.queries != 1 {
		t.Fatalf("digest ok %v, queries %d", store.digest() == want, store.queries)
	}
}

func TestUploadPermanentStorageError(t *testing.T) {
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Location", "/s")
			w.WriteHeader(201)
			return
		}
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "signature expired")
	}))
	defer storage.Close()
	api := uploadAPI(t, storage.URL)
	defer api.Close()
	c := newTestClient(t, api.URL, nil)
	path, _ := randomFile(t, 1000)
	_, err := c.UploadFile(context.Background(), path)
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 403 || !strings.Contains(err.Error(), "signature expired") {
		t.Fatalf("want a 403 APIError, got %v", err)
	}
	if c.Stats().Retries != 0 {
		t.Fatalf("a permanent storage error was retried: %+v", c.Stats())
	}
}

func TestUploadRejectsBadFiles(t *testing.T) {
	c := newTestClient(t, "http://127.0.0.1:1", nil)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.mp4")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{empty: "empty", dir: "not a regular file", filepath.Join(dir, "missing"): "no such file"} {
		if _, err := c.UploadFile(context.Background(), path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("UploadFile(%s) = %v, want %q", path, err, want)
		}
	}
}

// TestUploadStreamsInConstantMemory uploads a 200 MB sparse file with the
// production chunk size and checks the process allocated far less than that.
func TestUploadStreamsInConstantMemory(t *testing.T) {
	const size = 200 << 20
	path := filepath.Join(t.TempDir(), "big.mp4")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	// Markers so order and offsets matter to the digest.
	for _, off := range []int64{0, 17 << 20, 100 << 20, size - 5} {
		if _, err := f.WriteAt([]byte("mark!"), off); err != nil {
			t.Fatal(err)
		}
	}
	want := sha256.New()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(want, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	store := newFakeStorage(t)
	storage := httptest.NewServer(store)
	defer storage.Close()
	api := uploadAPI(t, storage.URL)
	defer api.Close()
	c := newTestClient(t, api.URL, nil)
	if c.chunkSize != defaultChunkSize {
		t.Fatalf("chunk size %d", c.chunkSize)
	}

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var peak uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	_, err = c.UploadFile(context.Background(), path)
	close(done)
	<-sampled
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	if store.digest() != hex.EncodeToString(want.Sum(nil)) {
		t.Fatal("stored bytes differ from the file")
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	grown := int64(peak) - int64(before.HeapAlloc)
	t.Logf("uploaded %d MiB in %d PUTs: allocated %d KiB, heap grew at most %d KiB", size>>20, store.puts, allocated>>10, grown>>10)
	if allocated > size/8 || grown > size/8 {
		t.Fatalf("upload of %d bytes allocated %d bytes, heap grew %d bytes: the file is not streamed", size, allocated, grown)
	}
	if want := (size + defaultChunkSize - 1) / defaultChunkSize; store.puts != want {
		t.Fatalf("%d PUTs for %d bytes in %d-byte chunks", store.puts, size, defaultChunkSize)
	}
}

func TestParseRangeHeader(t *testing.T) {
	cases := map[string]int64{"": 0, "bytes=0-0": 1, "bytes=0-1048575": 1 << 20}
	for in, want := range cases {
		if got, err := parseRangeHeader(in); err != nil || got != want {
			t.Errorf("parseRangeHeader(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"0-10", "bytes=5-10", "bytes=0-x"} {
		if _, err := parseRangeHeader(bad); err == nil {
			t.Errorf("parseRangeHeader(%q) accepted", bad)
		}
	}
}

// The session-start POST goes again only when the storage certainly did not
// act on it (a refused connection) or refused it with a 429; a connection
// dropped after the storage read it ends the upload.
func TestUploadStartRetriedOnlyWhenNotSent(t *testing.T) {
	refused := refusedURL(t)
	cases := []struct {
		name    string
		storage func(starts *counter) http.HandlerFunc // nil: nothing listens
		fails   bool                                   // the upload ends in an error...
		wantIs  error                                  // ...wrapping this, when set
		starts  int64                                  // start POSTs sent
	}{
		{name: "refused", fails: true, wantIs: syscall.ECONNREFUSED, starts: int64(fastPolicy.maxAttempts)},
		{name: "dropped after the storage read it", storage: func(*counter) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				dropConnection(t, w)
			}
		}, fails: true, starts: 1},
		{name: "429 then accepted", storage: func(starts *counter) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPut {
					_, _ = io.Copy(io.Discard, r.Body)
					w.WriteHeader(200)
					return
				}
				if starts.inc("start") == 1 {
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.Header().Set("Location", "/s")
				w.WriteHeader(201)
			}
		}, starts: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			starts := &counter{}
			storageURL := refused
			if tc.storage != nil {
				storage := httptest.NewServer(tc.storage(starts))
				defer storage.Close()
				storageURL = storage.URL
			}
			api := uploadAPI(t, storageURL)
			defer api.Close()
			c := newTestClient(t, api.URL, nil)
			path, _ := randomFile(t, 1000)
			_, err := c.UploadFile(context.Background(), path)
			if (err != nil) != tc.fails || tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Fatalf("upload error = %v, want failure %t wrapping %v", err, tc.fails, tc.wantIs)
			}
			sent := c.Stats().Requests - 1 // less the upload-link request
			if !tc.fails {
				sent-- // less the one chunk PUT
			}
			if sent != tc.starts {
				t.Fatalf("sent %d session starts, want %d", sent, tc.starts)
			}
		})
	}
}

// Each PUT ends with the storage syncing the file, so a file of tens of MiB
// goes in one PUT at the default chunk size, not one per 16 MiB.
func TestUploadSendsAMediumFileInOnePut(t *testing.T) {
	if store := uploadRandom(t, 0, 40<<20); store.puts != 1 {
		t.Fatalf("puts %d, want 1", store.puts)
	}
}
