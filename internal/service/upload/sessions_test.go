package upload

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// memStore is a Store in memory that remembers every record it saved, and
// fails its saves while failSave is set.
type memStore struct {
	mu       sync.Mutex
	ups      map[string]store.Upload
	saved    []store.Upload
	failSave error
}

func newMemStore() *memStore { return &memStore{ups: map[string]store.Upload{}} }

func (m *memStore) SaveUpload(_ context.Context, u *store.Upload) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failSave != nil {
		return m.failSave
	}
	m.ups[u.ID] = *u
	m.saved = append(m.saved, *u)
	return nil
}

func (m *memStore) AdvanceUpload(_ context.Context, id, sessionID string, from, to, total int64, complete bool) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failSave != nil {
		return false, m.failSave
	}
	u, ok := m.ups[id]
	switch {
	case !ok:
		return false, store.ErrNotFound
	case u.SessionID != sessionID || u.Received != from || u.Complete:
		return false, nil
	}
	u.Received, u.Total, u.Complete = to, total, complete
	m.ups[id] = u
	m.saved = append(m.saved, u)
	return true, nil
}

func (m *memStore) GetUpload(_ context.Context, id string) (*store.Upload, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.ups[id]
	if !ok {
		return nil, store.ErrNotFound
	}
	return &u, nil
}

func (m *memStore) GetUploadBySession(_ context.Context, sessionID string) (*store.Upload, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range m.ups {
		if sessionID != "" && u.SessionID == sessionID {
			return &u, nil
		}
	}
	return nil, store.ErrNotFound
}

func (m *memStore) record(t *testing.T, id string) store.Upload {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.ups[id]
	if !ok {
		t.Fatalf("no record of upload %s", id)
	}
	return u
}

// testLimit is the MaxBytes of the unit tests, small enough to send past.
const testLimit = 100

func newTestSessions(t *testing.T) (*Sessions, *memStore) {
	t.Helper()
	m := newMemStore()
	return New(Config{Store: m, Files: testMedia(t, t.TempDir()), MaxBytes: testLimit}), m
}

// testMedia is the data directory's store over root.
func testMedia(t *testing.T, root string) *blob.Dir {
	t.Helper()
	d, err := blob.NewDir(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// localFile is the file of up's bytes.
func localFile(t *testing.T, s *Sessions, up *store.Upload) string {
	t.Helper()
	p, err := s.file(up)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// held is an upload's record and file at one moment.
type held struct {
	received, total int64
	complete        bool
	file            string
}

// withUpload records an upload in the state h, with an open session, and
// returns the record.
func withUpload(t *testing.T, s *Sessions, m *memStore, h held) *store.Upload {
	t.Helper()
	up, err := s.Create(t.Context(), "org", "user")
	if err != nil {
		t.Fatal(err)
	}
	up.SessionID = "ses_" + up.ID
	up.Received, up.Total, up.Complete = h.received, h.total, h.complete
	if err := os.WriteFile(localFile(t, s, up), []byte(h.file), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.SaveUpload(t.Context(), up); err != nil {
		t.Fatal(err)
	}
	return up
}

// heldNow reads back the record and the file of an upload.
func heldNow(t *testing.T, s *Sessions, m *memStore, id string) held {
	t.Helper()
	up := m.record(t, id)
	data, err := os.ReadFile(localFile(t, s, &up))
	if err != nil {
		t.Fatal(err)
	}
	return held{received: up.Received, total: up.Total, complete: up.Complete, file: string(data)}
}

// put is a PUT whose Content-Length is its body's; streamed one without.
func put(contentRange, body string) Request {
	return Request{ContentRange: contentRange, ContentLength: int64(len(body)), Body: strings.NewReader(body)}
}

func streamed(contentRange, body string) Request {
	return Request{ContentRange: contentRange, ContentLength: -1, Body: strings.NewReader(body)}
}

// dropped is a body that brings part and then fails, as a connection lost mid-PUT.
func dropped(contentRange string, length int64, part string) Request {
	return Request{ContentRange: contentRange, ContentLength: length,
		Body: io.MultiReader(strings.NewReader(part), failingReader{io.ErrUnexpectedEOF})}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

// TestPut walks every branch of a PUT: status queries, the whole file,
// chunks in and out of order, short and dropped bodies, and a complete upload.
func TestPut(t *testing.T) {
	t.Parallel()
	none := held{total: -1}
	cases := []struct {
		name   string
		before held
		req    Request
		want   held
		status Status // UploadID is filled in
		err    string // a prefix of the *RequestError's text; "" for success
	}{
		// Status queries.
		{"query before any byte", none, put("bytes */10", ""), held{total: 10}, Status{}, ""},
		{"query keeps the total", held{received: 4, total: 10, file: "abcd"}, put("bytes */10", ""),
			held{received: 4, total: 10, file: "abcd"}, Status{Received: 4}, ""},
		{"query after chunks of unknown total", held{received: 4, total: -1, file: "abcd"}, put("bytes */10", ""),
			held{received: 4, total: 10, file: "abcd"}, Status{Received: 4}, ""},
		{"query at the limit", none, put("bytes */100", ""), held{total: 100}, Status{}, ""},
		{"query with a body", none, put("bytes */10", "abc"), none, Status{},
			"body: a status query (Content-Range: bytes */TOTAL) carries no body"},
		{"query of an empty file", none, put("bytes */0", ""), none, Status{},
			"Content-Range: TOTAL must be above 0: an empty file is not a video"},
		{"query over the limit", none, put("bytes */101", ""), none, Status{},
			"Content-Range: TOTAL 101 is over the 100-byte upload limit"},
		{"query completes chunks of unknown total", held{received: 10, total: -1, file: "0123456789"}, put("bytes */10", ""),
			held{received: 10, total: 10, complete: true, file: "0123456789"}, Status{Received: 10, Complete: true}, ""},
		{"query below the held bytes", held{received: 10, total: -1, file: "0123456789"}, put("bytes */5", ""),
			held{received: 10, total: -1, file: "0123456789"}, Status{}, "Content-Range: TOTAL 5 is below the 10 bytes the storage holds"},
		{"query drops a tail the record does not count", held{received: 4, total: 10, file: "abcdXYZ"}, put("bytes */10", ""),
			held{received: 4, total: 10, file: "abcd"}, Status{Received: 4}, ""},
		{"query contradicting the total", held{received: 4, total: 10, file: "abcd"}, put("bytes */12", ""),
			held{received: 4, total: 10, file: "abcd"}, Status{}, "Content-Range: TOTAL 12 differs from the 10 bytes announced earlier"},
		{"malformed Content-Range", none, put("bytes=0-3/10", "abcd"), none, Status{}, `Content-Range: must be "bytes FIRST-LAST/TOTAL"`},

		// A complete upload answers complete to any PUT, writing nothing.
		{"chunk to a complete upload", held{received: 4, total: 4, complete: true, file: "abcd"}, put("bytes 0-1/4", "zz"),
			held{received: 4, total: 4, complete: true, file: "abcd"}, Status{Received: 4, Complete: true}, ""},
		{"query of a complete upload", held{received: 4, total: 4, complete: true, file: "abcd"}, put("bytes */4", ""),
			held{received: 4, total: 4, complete: true, file: "abcd"}, Status{Received: 4, Complete: true}, ""},
		{"malformed Content-Range to a complete upload", held{received: 4, total: 4, complete: true, file: "abcd"}, put("bytes 5-1/4", ""),
			held{received: 4, total: 4, complete: true, file: "abcd"}, Status{}, "Content-Range: LAST must not be below FIRST"},

		// The whole file in one PUT.
		{"whole file", none, put("", "0123456789"),
			held{received: 10, total: 10, complete: true, file: "0123456789"}, Status{Received: 10, Complete: true}, ""},
		{"whole file replaces a partial one", held{received: 4, total: 10, file: "abcd"}, put("", "0123456789"),
			held{received: 10, total: 10, complete: true, file: "0123456789"}, Status{Received: 10, Complete: true}, ""},
		{"whole file contradicting the total", held{received: 4, total: 10, file: "abcd"}, put("", "xyz"),
			held{received: 4, total: 10, file: "abcd"}, Status{}, "Content-Length: 3 differs from the TOTAL 10 announced earlier in this session"},
		{"whole file streamed over the total", held{received: 4, total: 10, file: "abcd"}, streamed("", "0123456789ABCDE"),
			held{total: 10}, Status{}, "body: brings more than the TOTAL 10 announced earlier in this session"},
		{"whole file streamed", none, streamed("", "0123456789"),
			held{received: 10, total: 10, complete: true, file: "0123456789"}, Status{Received: 10, Complete: true}, ""},
		{"whole file at the limit", none, put("", strings.Repeat("v", 100)),
			held{received: 100, total: 100, complete: true, file: strings.Repeat("v", 100)}, Status{Received: 100, Complete: true}, ""},
		{"whole file empty", none, put("", ""), none, Status{}, "body: is empty: an empty file is not a video"},
		{"whole file over the limit", none, put("", strings.Repeat("v", 101)), none, Status{},
			"Content-Length: 101 is over the 100-byte upload limit"},
		{"whole file streamed over the limit", none, streamed("", strings.Repeat("v", 150)), none, Status{},
			"body: is over the 100-byte upload limit"},
		{"whole file dropped", none, dropped("", 10, "0123"),
			held{received: 4, total: 10, file: "0123"}, Status{}, "body: ended after 4 of 10 bytes (unexpected EOF)"},

		// Chunks, each where the held bytes end.
		{"first chunk", none, put("bytes 0-3/10", "abcd"), held{received: 4, total: 10, file: "abcd"}, Status{Received: 4}, ""},
		{"next chunk", held{received: 4, total: 10, file: "abcd"}, put("bytes 4-7/10", "efgh"),
			held{received: 8, total: 10, file: "abcdefgh"}, Status{Received: 8}, ""},
		{"last chunk", held{received: 4, total: 10, file: "abcd"}, put("bytes 4-9/10", "efghij"),
			held{received: 10, total: 10, complete: true, file: "abcdefghij"}, Status{Received: 10, Complete: true}, ""},
		{"chunk of unknown total", none, put("bytes 0-3/*", "abcd"), held{received: 4, total: -1, file: "abcd"}, Status{Received: 4}, ""},
		{"last chunk names the total", held{received: 4, total: -1, file: "abcd"}, put("bytes 4-5/6", "ef"),
			held{received: 6, total: 6, complete: true, file: "abcdef"}, Status{Received: 6, Complete: true}, ""},
		{"chunk with * keeps the known total", held{received: 4, total: 10, file: "abcd"}, put("bytes 4-5/*", "ef"),
			held{received: 6, total: 10, file: "abcdef"}, Status{Received: 6}, ""},
		{"chunk drops the unrecorded tail of a failed attempt", held{received: 4, total: 10, file: "abcdXYZ"}, put("bytes 4-5/10", "ef"),
			held{received: 6, total: 10, file: "abcdef"}, Status{Received: 6}, ""},
		{"chunk beyond the held bytes", held{received: 4, total: 10, file: "abcd"}, put("bytes 6-7/10", "gh"),
			held{received: 4, total: 10, file: "abcd"}, Status{},
			"Content-Range: the chunk starts at byte 6 but the storage holds 4 bytes; resume at byte 4 (ask with an empty PUT"},
		{"chunk sent again", held{received: 4, total: 10, file: "abcd"}, put("bytes 0-3/10", "abcd"),
			held{received: 4, total: 10, file: "abcd"}, Status{}, "Content-Range: the chunk starts at byte 0 but the storage holds 4 bytes"},
		{"chunk contradicting the total", held{received: 4, total: 10, file: "abcd"}, put("bytes 4-5/12", "ef"),
			held{received: 4, total: 10, file: "abcd"}, Status{}, "Content-Range: TOTAL 12 differs"},
		{"chunk of a file over the limit", none, put("bytes 0-3/101", "abcd"), none, Status{},
			"Content-Range: TOTAL 101 is over the 100-byte upload limit"},
		{"chunk whose length differs", none, Request{ContentRange: "bytes 0-3/10", ContentLength: 3, Body: strings.NewReader("abc")},
			none, Status{}, "Content-Length: must equal the 4 bytes of Content-Range bytes 0-3/10, not 3"},
		{"chunk streamed short", none, streamed("bytes 0-3/10", "ab"), held{received: 2, total: 10, file: "ab"}, Status{},
			"body: has 2 bytes but Content-Range announced 4; resume at byte 2"},
		{"chunk streamed long", none, streamed("bytes 0-3/10", "abcdef"), held{total: 10}, Status{},
			"body: brings more than the 4 bytes of Content-Range bytes 0-3/10"},
		{"chunk past the announced total", held{received: 4, total: 8, file: "abcd"}, put("bytes 4-9/*", "efghij"),
			held{received: 4, total: 8, file: "abcd"}, Status{}, "Content-Range: LAST 9 is beyond the TOTAL 8 announced earlier in this session"},
		{"chunk of unknown total past the limit", none, put("bytes 0-100/*", strings.Repeat("v", 101)), none, Status{},
			"Content-Range: LAST 100 is beyond the 100-byte upload limit"},
		{"chunk dropped", held{received: 4, total: 10, file: "abcd"}, dropped("bytes 4-9/10", 6, "ef"),
			held{received: 6, total: 10, file: "abcdef"}, Status{}, "body: ended after 2 of 6 bytes (unexpected EOF); ask for the status"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, m := newTestSessions(t)
			up := withUpload(t, s, m, c.before)
			got, err := s.Put(t.Context(), up.SessionID, c.req)
			if c.err != "" {
				var re *RequestError
				if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), c.err) {
					t.Fatalf("error %v, want a *RequestError starting %q", err, c.err)
				}
			} else {
				c.status.UploadID = up.ID
				if err != nil || got != c.status {
					t.Fatalf("Put = %+v, %v; want %+v", got, err, c.status)
				}
			}
			now := heldNow(t, s, m, up.ID)
			if now != c.want {
				t.Errorf("after the PUT %+v, want %+v", now, c.want)
			}
			// The disk holds what a status query reports, never more.
			if int64(len(now.file)) != now.received {
				t.Errorf("the disk holds %d bytes, the record %d", len(now.file), now.received)
			}
		})
	}
}

// TestPutResumes sends a file in chunks across a dropped connection: the
// status query after the drop says where to resume, and the resumed chunks
// complete the file.
func TestPutResumes(t *testing.T) {
	t.Parallel()
	s, m := newTestSessions(t)
	up := withUpload(t, s, m, held{total: -1})
	steps := []struct {
		req      Request
		received int64
		ok       bool
	}{
		{put("bytes 0-9/30", "0123456789"), 10, true},
		{dropped("bytes 10-19/30", 10, "abc"), 13, false},
		{put("bytes */30", ""), 13, true},
		{put("bytes 13-29/30", "defghijKLMNOPQRST"), 30, true},
		{put("bytes */30", ""), 30, true},
	}
	for i, st := range steps {
		got, err := s.Put(t.Context(), up.SessionID, st.req)
		if (err == nil) != st.ok || (err == nil && got.Received != st.received) {
			t.Fatalf("step %d: %+v, %v; want %d bytes held, ok %v", i, got, err, st.received, st.ok)
		}
	}
	if now := heldNow(t, s, m, up.ID); !now.complete || now.file != "0123456789abcdefghijKLMNOPQRST" {
		t.Errorf("after the resume %+v", now)
	}
}

// TestPutUnknownSession: an unknown session is ErrNotFound naming it.
func TestPutUnknownSession(t *testing.T) {
	t.Parallel()
	s, _ := newTestSessions(t)
	_, err := s.Put(t.Context(), "ses_nope", put("bytes */10", ""))
	if !errors.Is(err, ErrNotFound) || err.Error() != `upload session "ses_nope" not found` {
		t.Errorf("error %v, want ErrNotFound naming the session", err)
	}
}

// TestPutCheckpoints: a long PUT records its progress every checkpoint
// bytes, never ahead of what it wrote, so a crashed server resumes near
// where it stopped.
func TestPutCheckpoints(t *testing.T) {
	t.Parallel()
	s, m := newTestSessions(t)
	s.checkpoint = 4
	up := withUpload(t, s, m, held{total: -1})
	m.saved = nil
	if _, err := s.Put(t.Context(), up.SessionID, dropped("bytes 0-19/20", 20, "0123456789")); err == nil {
		t.Fatal("a dropped PUT succeeded")
	}
	var progress []int64
	for _, u := range m.saved {
		progress = append(progress, u.Received)
	}
	if want := []int64{4, 8, 10}; !slices.Equal(progress, want) {
		t.Errorf("recorded progress %v, want %v", progress, want)
	}
}

// TestPutFailures: a disk or store failure is not the client's fault (no
// *RequestError), and the record never counts bytes the disk may not hold.
// Not parallel: "disk fails mid-write" lowers the process's file size
// limit (limitFileSize), which would fail the other tests' writes (a SQLite
// store's commit answered "disk I/O error").
func TestPutFailures(t *testing.T) {
	t.Run("disk", func(t *testing.T) {
		s, m := newTestSessions(t)
		up := withUpload(t, s, m, held{received: 4, total: 10, file: "abcd"})
		// The file's place taken by a directory: it cannot be opened for writing.
		if err := os.Remove(localFile(t, s, up)); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(localFile(t, s, up), 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := s.Put(t.Context(), up.SessionID, put("bytes 4-5/10", "ef"))
		var re *RequestError
		if err == nil || errors.As(err, &re) || !strings.Contains(err.Error(), "upload "+up.ID) {
			t.Fatalf("error %v, want a failure of the disk naming the upload", err)
		}
		if rec := m.record(t, up.ID); rec.Received != 4 || rec.Complete {
			t.Errorf("record %+v after the failed write, want 4 bytes held", rec)
		}
	})
	t.Run("disk fails mid-write", func(t *testing.T) {
		s, m := newTestSessions(t)
		up := withUpload(t, s, m, held{received: 4, total: 10, file: "abcd"})
		// Files of this process may not grow past 7 bytes: the chunk's write
		// fails after 3 of its bytes reached the file, as on a full disk.
		limitFileSize(t, 7)
		_, err := s.Put(t.Context(), up.SessionID, put("bytes 4-9/10", "efghij"))
		var re *RequestError
		if err == nil || errors.As(err, &re) {
			t.Fatalf("error %v, want a failure of the disk", err)
		}
		if now := heldNow(t, s, m, up.ID); now != (held{received: 4, total: 10, file: "abcd"}) {
			t.Errorf("after the failed write %+v, want the 4 bytes held before it and nothing more on disk", now)
		}
	})
	t.Run("store", func(t *testing.T) {
		s, m := newTestSessions(t)
		up := withUpload(t, s, m, held{total: -1})
		saveErr := errors.New("disk full")
		m.failSave = saveErr
		for _, req := range []Request{put("", "abcd"), put("bytes */10", "")} {
			if _, err := s.Put(t.Context(), up.SessionID, req); !errors.Is(err, saveErr) {
				t.Errorf("PUT %q: error %v, want the store's", req.ContentRange, err)
			}
		}
		if _, err := s.Start(t.Context(), up.ID); !errors.Is(err, saveErr) {
			t.Errorf("Start: error %v, want the store's", err)
		}
		if _, err := s.Create(t.Context(), "org", "user"); !errors.Is(err, saveErr) {
			t.Errorf("Create: error %v, want the store's", err)
		}
	})
}

// limitFileSize makes writes of this process past n bytes of a file fail
// (EFBIG) until the test ends; Go ignores the SIGXFSZ that comes with them.
func limitFileSize(t *testing.T, n uint64) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("no file size limit here: %v", err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: old.Max}); err != nil {
		t.Skipf("cannot limit the file size: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Errorf("restoring the file size limit: %v", err)
		}
	})
}

func TestCreate(t *testing.T) {
	t.Parallel()
	m := newMemStore()
	root := t.TempDir()
	s := New(Config{Store: m, Files: testMedia(t, root)})
	up, err := s.Create(t.Context(), "org-a", "user-a")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(up.ID, "up_") || up.OrgID != "org-a" || up.UserID != "user-a" || up.Total != -1 ||
		up.SessionID != "" || up.Key != "uploads/"+up.ID+".bin" || localFile(t, s, up) != filepath.Join(root, "uploads", up.ID+".bin") {
		t.Errorf("created %+v", up)
	}
	if rec := m.record(t, up.ID); rec != *up {
		t.Errorf("recorded %+v, want %+v", rec, *up)
	}
	if st, err := os.Stat(filepath.Join(root, "uploads")); err != nil || !st.IsDir() {
		t.Errorf("uploads directory: %v", err)
	}
}

func TestStart(t *testing.T) {
	t.Parallel()
	s, m := newTestSessions(t)
	up := withUpload(t, s, m, held{received: 4, total: 10, file: "abcd"})
	old := up.SessionID

	sid, err := s.Start(t.Context(), up.ID)
	if err != nil || !strings.HasPrefix(sid, "ses_") || sid == old {
		t.Fatalf("Start = %q, %v; want a new session id", sid, err)
	}
	// The upload starts over, and the old session no longer takes bytes.
	if now := heldNow(t, s, m, up.ID); now != (held{total: -1}) {
		t.Errorf("after a new start %+v, want nothing held", now)
	}
	if _, err := s.Put(t.Context(), old, put("bytes 4-5/10", "ef")); !errors.Is(err, ErrNotFound) {
		t.Errorf("PUT to the replaced session: %v, want ErrNotFound", err)
	}
	if st, err := s.Put(t.Context(), sid, put("", "abc")); err != nil || !st.Complete {
		t.Fatalf("PUT to the new session: %+v, %v", st, err)
	}

	_, err = s.Start(t.Context(), up.ID)
	if !errors.Is(err, ErrComplete) || err.Error() != "upload "+up.ID+" is already complete; create a new upload link for another file" {
		t.Errorf("Start of a complete upload: %v, want ErrComplete", err)
	}
	_, err = s.Start(t.Context(), "up_nope")
	if !errors.Is(err, ErrNotFound) || err.Error() != `upload "up_nope" not found` {
		t.Errorf("Start of an unknown upload: %v, want ErrNotFound naming it", err)
	}
}

// TestNewerRequestTakesOver: a PUT whose body stalls holds its upload; a
// newer request on the upload (a status query, the next chunk, a new start)
// interrupts it instead of waiting behind it, as object stores do. The
// stalled PUT keeps the bytes it wrote and is told it was taken over.
func TestNewerRequestTakesOver(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		newer func(s *Sessions, up *store.Upload) (Status, error)
		want  Status // UploadID is filled in
		after held
	}{
		{"status query", func(s *Sessions, up *store.Upload) (Status, error) {
			return s.Put(context.Background(), up.SessionID, put("bytes */8", ""))
		}, Status{Received: 2}, held{received: 2, total: 8, file: "ab"}},
		{"next chunk", func(s *Sessions, up *store.Upload) (Status, error) {
			return s.Put(context.Background(), up.SessionID, put("bytes 2-7/8", "cdefgh"))
		}, Status{Received: 8, Complete: true}, held{received: 8, total: 8, complete: true, file: "abcdefgh"}},
		{"new start", func(s *Sessions, up *store.Upload) (Status, error) {
			_, err := s.Start(context.Background(), up.ID)
			return Status{}, err
		}, Status{}, held{total: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, m := newTestSessions(t)
			up := withUpload(t, s, m, held{total: -1})
			pr, pw := io.Pipe() // the stalled PUT's body: two bytes, then nothing
			stalled := make(chan error, 1)
			go func() {
				_, err := s.Put(context.Background(), up.SessionID, Request{
					ContentRange: "bytes 0-7/8", ContentLength: 8, Body: pr,
					Interrupt: func() { pr.CloseWithError(errors.New("read interrupted")) },
				})
				stalled <- err
			}()
			if _, err := pw.Write([]byte("ab")); err != nil { // returns once the stalled PUT is reading
				t.Fatal(err)
			}
			type answer struct {
				st  Status
				err error
			}
			newer := make(chan answer, 1)
			go func() {
				st, err := c.newer(s, up)
				newer <- answer{st, err}
			}()
			var got answer
			select {
			case got = <-newer:
			case <-time.After(storetest.EventuallyBound): // a hang guard
				t.Fatal("the newer request waited behind the stalled PUT")
			}
			if c.want.Received > 0 {
				c.want.UploadID = up.ID
			}
			if got.err != nil || got.st != c.want {
				t.Errorf("newer request: %+v, %v; want %+v", got.st, got.err, c.want)
			}
			var re *RequestError
			if err := <-stalled; !errors.As(err, &re) || !strings.Contains(err.Error(), "a newer request on this upload took over after 2 of 8 bytes") {
				t.Errorf("stalled PUT: %v, want a *RequestError saying it was taken over", err)
			}
			if now := heldNow(t, s, m, up.ID); now != c.after {
				t.Errorf("after the takeover %+v, want %+v", now, c.after)
			}
		})
	}
}

// TestUploadExpiredDuringAPutLeavesNoFile: when the janitor deletes an
// upload's record while a PUT writes to it, the save finds no record; the
// file the PUT wrote is removed with it, and the PUT answers not found.
func TestUploadExpiredDuringAPutLeavesNoFile(t *testing.T) {
	t.Parallel()
	s, m := newTestSessions(t)
	up := withUpload(t, s, m, held{total: -1})
	m.failSave = store.ErrNotFound // the record went between the lookup and the save
	_, err := s.Put(t.Context(), up.SessionID, Request{ContentRange: "bytes 0-4/10", ContentLength: 5, Body: strings.NewReader("hello")})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Put = %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(localFile(t, s, up)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file of the expired upload stays: %v", err)
	}
}
