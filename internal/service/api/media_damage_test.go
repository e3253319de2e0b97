package api

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestMediaRefusesDamagedRender: a render stored with its size and SHA-256
// is served whole while it is whole. Altered in place at the same size, a
// whole download is cut off before its last bytes (the client sees a
// broken transfer, not a complete damaged file); cut short, it is a JSON
// 500 naming the damage before any byte, for ranges too. It used to be
// served as it was.
func TestMediaRefusesDamagedRender(t *testing.T) {
	t.Parallel()
	f := newMediaFixture(t)
	render := bytes.Repeat([]byte("a rendered clip "), 40_000) // 640 KB
	tmp := filepath.Join(t.TempDir(), "c1.mp4")
	if err := os.WriteFile(tmp, render, 0o644); err != nil {
		t.Fatal(err)
	}
	media := testMedia(t, f.dir)
	const key = "media/p1/c1.mp4"
	sum, err := blob.PutFileSum(t.Context(), media, key, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.RecordMediaSum(t.Context(), key, store.MediaSum(sum)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	addr := srv.URL + strings.TrimPrefix(f.clip().URIForExport, "http://clipperd.test")
	get := func(rangeHeader string) (int, []byte, error) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rangeHeader != "" {
			req.Header.Set("Range", rangeHeader)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, body, err
	}
	if status, body, err := get(""); status != http.StatusOK || err != nil || !bytes.Equal(body, render) {
		t.Fatalf("a whole render: %d, %d bytes, %v; want 200 and every byte", status, len(body), err)
	}

	file := filepath.Join(f.dir, "media", "p1", "c1.mp4")
	out, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.WriteAt([]byte("ALTERED"), 1000); err != nil {
		t.Fatal(err)
	}
	_ = out.Close()
	status, body, err := get("")
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(body) >= len(render) {
		t.Errorf("an altered render: %d, %d of %d bytes, %v; want the transfer cut before its end", status, len(body), len(render), err)
	}
	if status, body, _ := get("bytes=0-9"); status != http.StatusPartialContent || string(body) != "a rendered" {
		t.Errorf("a range of an altered render: %d %q; ranges are not hashed", status, body)
	}

	if err := os.Truncate(file, int64(len(render)/2)); err != nil {
		t.Fatal(err)
	}
	for _, rangeHeader := range []string{"", "bytes=0-9"} {
		status, body, err := get(rangeHeader)
		if status != http.StatusInternalServerError || err != nil || !strings.Contains(string(body), "the stored file media/p1/c1.mp4 is damaged") {
			t.Errorf("a cut render (Range %q): %d %s, %v; want a 500 naming the damage", rangeHeader, status, body, err)
		}
	}
}
