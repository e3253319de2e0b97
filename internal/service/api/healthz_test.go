package api

import (
	"bytes"
	"database/sql"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestHealthzNotReadyWithoutTools: with ffprobe off PATH the server logs
// an error at start and /healthz is a JSON 503 naming it; once it is
// installed, /healthz is "ok" again without a restart.
func TestHealthzNotReadyWithoutTools(t *testing.T) {
	st, _ := keyedStore(t)
	bin := t.TempDir()
	tool := func(name string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tool("ffmpeg")
	t.Setenv("PATH", bin)
	var logs bytes.Buffer
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "ffprobe not found on PATH") {
		t.Errorf("start log %q: want an error naming ffprobe", logs.String())
	}
	rec := send(t, h, http.MethodGet, "/healthz", "", "")
	wantAnswer(t, rec, http.StatusServiceUnavailable, errUnavailable, "not ready: ffprobe not found on PATH")

	tool("ffprobe")
	rec = send(t, h, http.MethodGet, "/healthz", "", "")
	if rec.Code != http.StatusOK || rec.Body.String() != "ok" {
		t.Errorf("with both tools: %d %q, want 200 ok", rec.Code, rec.Body)
	}
}

// TestHealthzReadsTheDatabase: damaged pages under the API keys make every
// authenticated call a 500; /healthz, which used to answer "ok" through it,
// is a JSON 503 saying the database is damaged and what to do: at once when
// the table's pages are damaged (it reads them), and after the first call
// that met damage elsewhere (the key's index).
func TestHealthzReadsTheDatabase(t *testing.T) {
	t.Parallel()
	for _, damaged := range []string{"api_keys", "sqlite_autoindex_api_keys_1"} {
		t.Run(damaged, func(t *testing.T) {
			h, key, dir := manyKeys(t)
			if rec := send(t, h, http.MethodGet, "/healthz", "", ""); rec.Code != http.StatusOK {
				t.Fatalf("healthz of a whole database: %d %s", rec.Code, rec.Body)
			}
			damagePage(t, dir, damaged)
			if damaged == "api_keys" {
				rec := send(t, h, http.MethodGet, "/healthz", "", "")
				wantAnswer(t, rec, http.StatusServiceUnavailable, errUnavailable, "not ready: the database is damaged")
			}
			if rec := send(t, h, http.MethodGet, "/api/brand-templates", key, ""); rec.Code != http.StatusInternalServerError {
				t.Errorf("a call over damaged key pages: %d %s, want 500", rec.Code, rec.Body)
			}
			rec := send(t, h, http.MethodGet, "/healthz", "", "")
			wantAnswer(t, rec, http.StatusServiceUnavailable, errUnavailable, "not ready: the database is damaged")
			if !strings.Contains(rec.Body.String(), "clipperd repair") {
				t.Errorf("healthz %s: want it to say how to repair", rec.Body)
			}
		})
	}
}

// manyKeys is an API over a store in dir with several pages of keys (the
// table's and its index's roots are interior pages), and one of the keys.
func manyKeys(t *testing.T) (h http.Handler, key, dir string) {
	t.Helper()
	dir = t.TempDir()
	st, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	for range 200 {
		if key, err = st.CreateKey(t.Context(), "org-a", "user-a"); err != nil {
			t.Fatal(err)
		}
	}
	return New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test"}), key, dir
}

// damagePage overwrites the header of the root page of the table or index
// named in the database of the store open in dir, from another connection:
// the pages go to the file first, and a write of its own after makes the
// store's connection read the file again.
func damagePage(t *testing.T, dir, name string) {
	t.Helper()
	file := filepath.Join(dir, store.DefaultFile)
	raw, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var root int64
	if err := raw.QueryRowContext(t.Context(), `SELECT rootpage FROM sqlite_master WHERE name = ?`, name).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(t.Context(), `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xFF}, 16), (root-1)*4096); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(t.Context(), `INSERT INTO credits(org_id, month, used) VALUES ('x', '2026-01', 0)`); err != nil {
		t.Fatal(err)
	}
}
