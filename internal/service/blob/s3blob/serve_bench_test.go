package s3blob_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
)

// BenchmarkServe measures what /media does on each store, side by side:
// http.ServeContent over Store.Open, a whole 32 MiB render and a 1 MiB
// range of it, read by an HTTP client on loopback. Run it once per round
// (-test.count 1, several rounds in a row) so the stores alternate; the
// command is in BENCHMARKS.md.
func BenchmarkServe(b *testing.B) {
	body := bytes.Repeat([]byte("0123456789abcdef"), (32<<20)/16)
	srv := miniotest.Start(b)
	bucket := newStore(b, srv, "")
	dir, err := blob.NewDir(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, st := range []struct {
		name  string
		store blob.Store
	}{{"Directory", dir}, {"Bucket", bucket}} {
		if err := blob.Write(b.Context(), st.store, "media/p1/c01.mp4", bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
		web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, err := st.store.Open(r.Context(), strings.TrimPrefix(r.URL.Path, "/"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			defer f.Close()
			http.ServeContent(w, r, "", f.Info().ModTime, f)
		}))
		b.Cleanup(web.Close)
		for _, rq := range []struct{ name, rng string }{{"Whole", ""}, {"Range1MiB", "bytes=8388608-9437183"}} {
			b.Run(st.name+"/"+rq.name, func(b *testing.B) {
				want := int64(len(body))
				if rq.rng != "" {
					want = 1 << 20
				}
				b.SetBytes(want)
				for b.Loop() {
					req, _ := http.NewRequestWithContext(b.Context(), http.MethodGet, web.URL+"/media/p1/c01.mp4", nil)
					if rq.rng != "" {
						req.Header.Set("Range", rq.rng)
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					n, err := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err != nil || n != want {
						b.Fatalf("read %d bytes, %v; want %d", n, err, want)
					}
				}
			})
		}
	}
}
