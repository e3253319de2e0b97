package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

// TestUploadProtocol walks the object-storage side of the local upload flow:
// start, chunked PUTs, status queries, a connection dropped mid-chunk, the
// resume, and completion.
func TestUploadProtocol(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{AllowPrivateImports: true})
	c := newClient(t, srv, devKey)
	data := randomBytes(300)

	link := c.uploadLink()
	if !strings.HasPrefix(link.URL, srv.URL()+"/storage/uploads/") || link.UploadID == "" || link.DNSURL != srv.URL() {
		t.Fatalf("upload link %+v", link)
	}
	if link.TotalAmount != 900 || link.UseAmount != 0 {
		t.Errorf("useAmount %v totalAmount %v, want 0 and 900", link.UseAmount, link.TotalAmount)
	}

	// Starting needs x-store-resumable: start; the storage takes no API key.
	anon := newClient(t, srv, "")
	resp, body := anon.do(http.MethodPost, link.URL, nil)
	wantError(t, resp, body, http.StatusBadRequest, "Bad Request", "x-store-resumable: must be start")
	resp, body = anon.do(http.MethodPost, srv.URL()+"/storage/uploads/up_unknown", nil, apitypes.HeaderResumable, "start")
	wantError(t, resp, body, http.StatusNotFound, "Not Found", "up_unknown")
	resp, body = anon.do(http.MethodPost, link.URL, nil, apitypes.HeaderResumable, "start")
	if resp.StatusCode != http.StatusCreated || len(body) != 0 {
		t.Fatalf("start: %d %q, want 201 with no body", resp.StatusCode, body)
	}
	session := resp.Header.Get("Location")
	sid := resp.Header.Get(apitypes.HeaderResumableUploadID)
	if sid == "" || session != srv.URL()+"/storage/sessions/"+sid {
		t.Fatalf("location %q, session id %q", session, sid)
	}

	put := func(b []byte, contentRange string) (*http.Response, []byte) {
		t.Helper()
		var hdr []string
		if contentRange != "" {
			hdr = []string{"Content-Range", contentRange, "Content-Type", "application/octet-stream"}
		}
		if b == nil {
			b = []byte{}
		}
		return anon.do(http.MethodPut, session, b, hdr...)
	}
	status := func() (int, string) {
		t.Helper()
		resp, _ := put(nil, "bytes */300")
		return resp.StatusCode, resp.Header.Get("Range")
	}

	if code, rng := status(); code != http.StatusPermanentRedirect || rng != "" {
		t.Errorf("status before any byte: %d Range %q, want 308 without Range", code, rng)
	}
	resp, _ = put(data[:100], "bytes 0-99/300")
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Range") != "bytes=0-99" {
		t.Fatalf("first chunk: %d Range %q", resp.StatusCode, resp.Header.Get("Range"))
	}
	// A chunk that does not start where the storage stands is refused.
	resp, body = put(data[150:200], "bytes 150-199/300")
	wantError(t, resp, body, http.StatusBadRequest, "Bad Request", "Content-Range: the chunk starts at byte 150 but the storage holds 100 bytes")
	resp, body = put(data[100:200], "bytes 100-199/400")
	wantError(t, resp, body, http.StatusBadRequest, "Bad Request", "Content-Range: TOTAL 400 differs")
	resp, body = put(data[100:200], "bytes=100-199/300")
	wantError(t, resp, body, http.StatusBadRequest, "Bad Request", "Content-Range")

	// The client dies after sending 40 of the chunk's 100 bytes.
	dropMidChunk(t, session, "bytes 100-199/300", 100, data[100:140])
	storetest.Eventually(t, "308 with Range bytes=0-139 after the drop", func() bool {
		code, rng := status()
		return code == http.StatusPermanentRedirect && rng == "bytes=0-139"
	})

	// Resume from byte 140 to the end.
	resp, body = put(data[140:], "bytes 140-299/300")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("last chunk: %d %s", resp.StatusCode, body)
	}
	done := decode[map[string]any](t, body)
	if done["uploadId"] != link.UploadID || done["size"] != float64(300) || done["complete"] != true {
		t.Errorf("completion body %s", body)
	}
	if code, _ := status(); code != http.StatusOK {
		t.Errorf("status after completion: %d, want 200", code)
	}
	wantStored(t, srv, link.UploadID, data)
	// A complete upload cannot be restarted; unknown sessions are 404.
	resp, body = anon.do(http.MethodPost, link.URL, nil, apitypes.HeaderResumable, "start")
	wantError(t, resp, body, http.StatusConflict, "Conflict", "already complete")
	resp, body = anon.do(http.MethodPut, srv.URL()+"/storage/sessions/ses_nope", []byte("x"), "Content-Range", "bytes 0-0/1")
	wantError(t, resp, body, http.StatusNotFound, "Not Found", "ses_nope")

	// The upload id is now a videoUrl; the create answer names it in x-svc-upload-id.
	resp, body = c.create(map[string]any{"videoUrl": link.UploadID})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create from upload: %d %s", resp.StatusCode, body)
	}
	p := decode[apitypes.Project](t, body)
	if resp.Header.Get(apitypes.HeaderUploadID) != link.UploadID || p.SourcePlatform != apitypes.PlatformUploaded || p.SourceID != link.UploadID {
		t.Errorf("x-svc-upload-id %q, sourcePlatform %s, sourceId %s", resp.Header.Get(apitypes.HeaderUploadID), p.SourcePlatform, p.SourceID)
	}
	// Another org cannot use it.
	otherKey, err := srv.store.CreateKey(t.Context(), "org-other", "u")
	if err != nil {
		t.Fatal(err)
	}
	resp, body = newClient(t, srv, otherKey).create(map[string]any{"videoUrl": link.UploadID})
	wantError(t, resp, body, http.StatusBadRequest, "Bad Request", "videoUrl: unknown upload id")
}

// TestUploadSizeLimit: the storage takes up to the 30 GB every source may
// have (quota.MaxSourceBytes, decimal, as the pipeline checks), not a byte more.
func TestUploadSizeLimit(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{AllowPrivateImports: true})
	c := newClient(t, srv, devKey)
	_, session := c.openUpload()
	over := strconv.FormatInt(quota.MaxSourceBytes+1, 10)
	resp, body := c.do(http.MethodPut, session, nil, "Content-Range", "bytes */"+over)
	wantError(t, resp, body, http.StatusBadRequest, "Bad Request", "Content-Range: TOTAL "+over+" is over the 30000000000-byte upload limit")
	resp, body = c.do(http.MethodPut, session, nil, "Content-Range", "bytes */"+strconv.FormatInt(quota.MaxSourceBytes, 10))
	if resp.StatusCode != http.StatusPermanentRedirect {
		t.Errorf("status query at the limit: %d %s, want 308", resp.StatusCode, body)
	}
}

// openUpload makes an upload link and starts its session: the upload id
// and the session's address.
func (c *apiClient) openUpload() (uploadID, session string) {
	c.t.Helper()
	link := c.uploadLink()
	return link.UploadID, c.startSession(link.URL)
}

// wantStored checks that the storage holds exactly data for the upload.
func wantStored(t *testing.T, srv *Server, uploadID string, data []byte) {
	t.Helper()
	stored, err := os.ReadFile(filepath.Join(srv.dir, "uploads", uploadID+".bin"))
	if err != nil || !bytes.Equal(stored, data) {
		t.Fatalf("stored upload differs from the data sent (err %v, %d bytes)", err, len(stored))
	}
}

// TestUploadWholeFile sends the file in one PUT without Content-Range.
func TestUploadWholeFile(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	c := newClient(t, srv, devKey)
	data := randomBytes(5000)
	id, session := c.openUpload()
	resp, body := c.do(http.MethodPut, session, data, "Content-Type", "application/octet-stream")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("whole PUT: %d %s", resp.StatusCode, body)
	}
	wantStored(t, srv, id, data)
}

// dropMidChunk sends a PUT announcing n body bytes, writes only part, and
// closes the connection, as a client that crashed or lost its network would.
func dropMidChunk(t *testing.T, session, contentRange string, n int, part []byte) {
	t.Helper()
	u, err := url.Parse(session)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/octet-stream\r\nContent-Range: %s\r\nContent-Length: %d\r\n\r\n",
		u.RequestURI(), u.Host, contentRange, n)
	if _, err := conn.Write(part); err != nil {
		t.Fatal(err)
	}
	// Half-close so the server sees the body end early, then read whatever it answers.
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.Copy(io.Discard, bufio.NewReader(conn))
	_ = conn.Close()
}

// TestMediaRange serves a file under DataDir/media with Range support and
// without a key (a signed address), and refuses anything but rendered .mp4
// files.
func TestMediaRange(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	dir := filepath.Join(srv.dir, "media", "p1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := randomBytes(1000)
	for _, name := range []string{"c1.mp4", "source.mp4"} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	anon := newClient(t, srv, "")
	signed := func(path string) string {
		addr, err := srv.links.Sign(t.Context(), srv.URL()+path, false)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimPrefix(addr, srv.URL())
	}
	resp, body := anon.do(http.MethodGet, signed("/media/p1/c1.mp4"), nil, "Range", "bytes=100-199")
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(body, data[100:200]) {
		t.Fatalf("range GET: %d, %d bytes", resp.StatusCode, len(body))
	}
	if got := resp.Header.Get("Content-Range"); got != "bytes 100-199/1000" {
		t.Errorf("Content-Range %q", got)
	}
	if resp, body := anon.do(http.MethodGet, signed("/media/p1/c1.mp4"), nil); resp.StatusCode != http.StatusOK || len(body) != 1000 ||
		resp.Header.Get("Accept-Ranges") != "bytes" || resp.Header.Get("Content-Type") != "video/mp4" {
		t.Errorf("full GET: %d, %d bytes, headers %v", resp.StatusCode, len(body), resp.Header)
	}
	for _, p := range []string{"/media/p1/source.mp4", "/media/p1/missing.mp4", "/media/p1/..%2F..%2Fclipperd.db", "/media/p1/c1.txt"} {
		if resp, _ := anon.do(http.MethodGet, signed(p), nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
}

// TestUploadUnknownTotal sends chunks of unknown total ("bytes 0-4/*"); the
// status query that names the total completes the upload once the storage
// holds that many bytes, and a total below what it holds is refused.
func TestUploadUnknownTotal(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	c := newClient(t, srv, devKey)
	data := randomBytes(10)
	id, session := c.openUpload()
	for _, chunk := range []struct {
		rng     string
		from    int
		wantRng string
	}{{"bytes 0-4/*", 0, "bytes=0-4"}, {"bytes 5-9/*", 5, "bytes=0-9"}} {
		resp, body := c.do(http.MethodPut, session, data[chunk.from:chunk.from+5], "Content-Range", chunk.rng)
		if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Range") != chunk.wantRng {
			t.Fatalf("chunk %s: %d Range %q %s", chunk.rng, resp.StatusCode, resp.Header.Get("Range"), body)
		}
	}
	resp, body := c.do(http.MethodPut, session, nil, "Content-Range", "bytes */8")
	wantError(t, resp, body, http.StatusBadRequest, "Bad Request", "Content-Range: TOTAL 8 is below the 10 bytes the storage holds")
	resp, body = c.do(http.MethodPut, session, nil, "Content-Range", "bytes */10")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"complete":true`) {
		t.Fatalf("status query naming the total: %d %s, want 200 complete", resp.StatusCode, body)
	}
	wantStored(t, srv, id, data)
}
