package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
