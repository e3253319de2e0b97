package api_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Files of the media fuzz fixture. Only the clip's render and captions may
// ever be served; the other files are each what a path trick would reach:
// the imported source beside the clip, a file beside the media dir, an
// upload, a dot file.
var (
	servedMedia = map[string]string{
		"media/p1/c01.mp4": "rendered clip c01 of p1",
		"media/p1/c01.srt": "1\n00:00:00,000 --> 00:00:01,000\nhello\n",
	}
	hiddenMedia = map[string]string{
		"media/p1/source.mp4":  "SECRET source of p1",
		"media/p1/.hidden.mp4": "SECRET dot file",
		"secret.mp4":           "SECRET beside the media dir",
		"uploads/up_1.mp4":     "SECRET upload bytes",
	}
)

// FuzzMediaPath fuzzes the request target of GET /media/..., parsed as
// the HTTP server parses a request line, with a fuzzed Range: never a 5xx, never a byte of a
// file it must not serve, a 2xx only with a served file's bytes, and a 4xx
// as a JSON error body.
func FuzzMediaPath(f *testing.F) {
	srv := newFuzzServer(f)
	for _, files := range []map[string]string{servedMedia, hiddenMedia} {
		for name, content := range files {
			path := filepath.Join(srv.dataDir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				f.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				f.Fatal(err)
			}
		}
	}
	f.Fuzz(func(t *testing.T, target, rangeHeader string) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET /media/" + target + " HTTP/1.1\r\nHost: clipperd.test\r\n\r\n")))
		if err != nil {
			return // the server answers 400 itself before any handler runs
		}
		req = req.WithContext(t.Context())
		if rangeHeader != "" {
			req.Header.Set("Range", rangeHeader)
		}
		rec := httptest.NewRecorder()
		srv.h.ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		for _, secret := range hiddenMedia {
			if bytes.Contains(body, []byte(secret)) {
				t.Fatalf("GET /media/%s served a file it must not: %d %q", target, rec.Code, body)
			}
		}
		if rec.Code/100 == 2 && !servedParts(t, rec) {
			t.Fatalf("GET /media/%s: %d with bytes of no served file: %q", target, rec.Code, body)
		}
		checkAnswer(t, rec, anyField, target)
	})
}

// servedParts is whether the answer's body, or each part of a multipart
// answer to several ranges, is a part of a served file.
func servedParts(t *testing.T, rec *httptest.ResponseRecorder) bool {
	t.Helper()
	mediaType, params, err := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	if err != nil || mediaType != "multipart/byteranges" {
		return partOfServed(rec.Body.Bytes())
	}
	parts := multipart.NewReader(bytes.NewReader(rec.Body.Bytes()), params["boundary"])
	for {
		p, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			t.Fatalf("multipart answer: %v", err)
		}
		data, err := io.ReadAll(p)
		if err != nil {
			t.Fatalf("multipart answer: %v", err)
		}
		if !partOfServed(data) {
			return false
		}
	}
}

// partOfServed is whether body is a part (a range) of a served file.
func partOfServed(body []byte) bool {
	for _, content := range servedMedia {
		if bytes.Contains([]byte(content), body) {
			return true
		}
	}
	return false
}
