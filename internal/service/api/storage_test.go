package api

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// A full disk is the server's trouble and passes: 507 with Retry-After,
// whether SQLite or a file write found no space. An org over its storage
// quota is a 403 that names the quota.
func TestFailStorage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, errName, msg string
		err                error
		status             int
		retryAfter         string
	}{
		{"disk full", errFull, "the server's storage is full",
			fmt.Errorf("upload up_1: %w", &fs.PathError{Op: "write", Path: "/data/uploads/up_1.bin", Err: syscall.ENOSPC}),
			http.StatusInsufficientStorage, "60"},
		{"database full", errFull, "the server's storage is full",
			fmt.Errorf(`upload session "ses_1": %w`, sqliteFullError(t)),
			http.StatusInsufficientStorage, "60"},
		{"storage quota", errStorageQuota, "storage quota of 20 GiB per organization reached (20 GiB used)",
			fmt.Errorf("admit: %w", &quota.StorageQuotaError{Used: 20 << 30, Quota: 20 << 30}),
			http.StatusForbidden, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, _ := failAPI()
			rec := httptest.NewRecorder()
			a.fail(rec, httptest.NewRequest(http.MethodPost, "/api/upload-links", nil), c.err)
			wantErrorBody(t, rec, c.status, c.errName, c.msg)
			if got := rec.Header().Get("Retry-After"); got != c.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, c.retryAfter)
			}
		})
	}
}

// On a database that cannot grow, creating upload links and collections
// ends in 507 with Retry-After, never a 500; once there is room again they
// work.
func TestFullDatabaseAnswers507(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test", Limits: quota.Limits{MaxCollections: 1 << 20}})
	session := startSession(t, h, uploadLink(t, h, key))
	limitDatabase(t, st)

	untilRefused(t, "upload link", func() *httptest.ResponseRecorder {
		return send(t, h, http.MethodPost, "/api/upload-links", key, `{"video": {"usecase": "LocalUpload"}}`)
	})
	untilRefused(t, "collection", func() *httptest.ResponseRecorder {
		return send(t, h, http.MethodPost, "/api/collections", key, `{"collectionName": "clips"}`)
	})
	// A session start or a status query rewrites its upload's row, which a
	// capped database may still fit in place (a full disk would not: the
	// journal cannot grow); the answer to SQLite's full error they meet
	// there is TestFailStorage's "database full".
	if rec := put(t, h, session, "bytes */10", ""); rec.Code != http.StatusPermanentRedirect && rec.Code != http.StatusInsufficientStorage {
		t.Errorf("status query on a full database: %d %s, want 308 or 507", rec.Code, rec.Body)
	}

	if err := st.LimitSize(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	uploadLink(t, h, key)
}

// sqliteFullError is the error SQLite returns when the database cannot
// grow ("database or disk is full"), met for real on a capped database.
func sqliteFullError(t *testing.T) error {
	t.Helper()
	st, _ := keyedStore(t)
	limitDatabase(t, st)
	for range 10_000 {
		if _, err := st.CreateKey(t.Context(), "org-filler", "user-filler"); err != nil {
			if !strings.Contains(err.Error(), "database or disk is full") {
				t.Fatalf("filling the database: %v", err)
			}
			return err
		}
	}
	t.Fatal("the capped database never filled up")
	return nil
}

// limitDatabase caps the database at the pages it has now: writes that need
// another page find the "disk" full.
func limitDatabase(t *testing.T, st *store.Store) {
	t.Helper()
	if err := st.LimitSize(t.Context(), false); err != nil {
		t.Fatal(err)
	}
}

// untilRefused repeats a request that succeeds while the database has room
// until it is refused, which must be a 507.
func untilRefused(t *testing.T, what string, do func() *httptest.ResponseRecorder) {
	t.Helper()
	for range 10_000 {
		rec := do()
		if rec.Code < 300 {
			continue
		}
		want507(t, what, rec)
		return
	}
	t.Fatalf("%s: never refused on a capped database", what)
}

func want507(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusInsufficientStorage || rec.Header().Get("Retry-After") == "" {
		t.Errorf("%s on a full database: %d %s (Retry-After %q), want 507 with Retry-After",
			what, rec.Code, rec.Body, rec.Header().Get("Retry-After"))
	}
}

// With a storage quota, an org that has used it up gets no upload link, no
// project and no more upload bytes: 403 naming the quota. A status query
// still answers, and another org is not affected.
func TestStorageQuota(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	otherKey, err := st.CreateKey(t.Context(), "org-b", "user-b")
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test", AllowPrivateImports: true,
		Limits: quota.Limits{StorageQuota: 100}})

	first := startSession(t, h, uploadLink(t, h, key))
	second := startSession(t, h, uploadLink(t, h, key))
	if rec := put(t, h, first, "bytes 0-59/100", strings.Repeat("a", 60)); rec.Code != http.StatusPermanentRedirect {
		t.Fatalf("60 bytes under a 100-byte quota: %d %s", rec.Code, rec.Body)
	}
	// 60 held; 50 more would pass 100.
	rec := put(t, h, second, "bytes 0-49/50", strings.Repeat("b", 50))
	wantErrorBody(t, rec, http.StatusForbidden, errStorageQuota, "storage quota of 100 B per organization reached (60 B used, 50 B more requested)")
	if rec := put(t, h, first, "bytes 60-99/100", strings.Repeat("a", 40)); rec.Code != http.StatusOK {
		t.Fatalf("the last 40 bytes, filling the quota: %d %s", rec.Code, rec.Body)
	}
	if rec := put(t, h, second, "bytes */50", ""); rec.Code != http.StatusPermanentRedirect {
		t.Errorf("status query at the quota: %d %s, want 308", rec.Code, rec.Body)
	}

	rec = send(t, h, http.MethodPost, "/api/upload-links", key, `{"video": {"usecase": "LocalUpload"}}`)
	wantErrorBody(t, rec, http.StatusForbidden, errStorageQuota, "storage quota of 100 B per organization reached")
	rec = send(t, h, http.MethodPost, "/api/clip-projects", key, `{"videoUrl": "https://www.youtube.com/watch?v=abc"}`)
	wantErrorBody(t, rec, http.StatusForbidden, errStorageQuota, "storage quota of 100 B per organization reached")

	if rec := send(t, h, http.MethodPost, "/api/upload-links", otherKey, `{"video": {"usecase": "LocalUpload"}}`); rec.Code != http.StatusOK {
		t.Errorf("another org's upload link: %d %s", rec.Code, rec.Body)
	}
}

func uploadLink(t *testing.T, h http.Handler, key string) apitypes.UploadLink {
	t.Helper()
	rec := send(t, h, http.MethodPost, "/api/upload-links", key, `{"video": {"usecase": "LocalUpload"}}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("upload link: %d %s", rec.Code, rec.Body)
	}
	var env apitypes.Envelope[apitypes.UploadLink]
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	return env.Data
}

// startSession opens a resumable session of the upload and returns its id.
func startSession(t *testing.T, h http.Handler, link apitypes.UploadLink) string {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/storage/uploads/"+link.UploadID, nil)
	req.Header.Set(apitypes.HeaderResumable, "start")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("start session: %d %s", rec.Code, rec.Body)
	}
	return rec.Header().Get(apitypes.HeaderResumableUploadID)
}

func put(t *testing.T, h http.Handler, session, contentRange, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPut, "/storage/sessions/"+session, strings.NewReader(body))
	req.Header.Set("Content-Range", contentRange)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func wantErrorBody(t *testing.T, rec *httptest.ResponseRecorder, status int, name, msgPrefix string) {
	t.Helper()
	var body apitypes.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	if rec.Code != status || body.ErrorName != name || body.ErrorMessage == nil || !strings.HasPrefix(*body.ErrorMessage, msgPrefix) {
		t.Errorf("answer %d %s, want %d %s %q…", rec.Code, rec.Body, status, name, msgPrefix)
	}
}
