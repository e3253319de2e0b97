package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// guard bounds every wait of these tests: it only keeps a server that never
// answers from hanging the test, and is never what a test asserts.
const guard = 10 * time.Second

// rawConn is a client connection that sends exactly what a test writes,
// from the loopback address from (all of 127.0.0.0/8 is loopback on
// Linux, so a test can play several client addresses).
func rawConn(t *testing.T, srv *Server, from string) net.Conn {
	t.Helper()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", u.Host)
	if err != nil {
		t.Skipf("cannot dial from %s here: %v", from, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// endedByServer reads c to its end and reports whether the server closed
// it (rather than the guard running out), with what it answered first.
func endedByServer(t *testing.T, c net.Conn) (closed bool, answer string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(guard))
	data, err := io.ReadAll(c)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return false, string(data)
	}
	return true, string(data)
}

// readAnswer reads one HTTP answer from r.
func readAnswer(t *testing.T, c net.Conn, r *bufio.Reader) (*http.Response, string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(guard))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp, string(body)
}

// sendPut writes the head of a PUT of n body bytes to session, and part of
// the body.
func sendPut(t *testing.T, c net.Conn, session, contentRange string, n int, part []byte) {
	t.Helper()
	u, err := url.Parse(session)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(c, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Range: %s\r\nContent-Length: %d\r\n\r\n",
		u.RequestURI(), u.Host, contentRange, n); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(part); err != nil {
		t.Fatal(err)
	}
}

// statusQuery asks what the storage holds of session, within the guard.
func statusQuery(t *testing.T, session string, total int) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, session, http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Range", fmt.Sprintf("bytes */%d", total))
	resp, err := (&http.Client{Timeout: guard}).Do(req)
	if err != nil {
		t.Fatalf("status query: %v", err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Range")
}

// TestIdleConnectionClosed: a keep-alive connection without a next request
// is closed by the server after the idle timeout.
func TestIdleConnectionClosed(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{IdleTimeout: 200 * time.Millisecond})
	c := rawConn(t, srv, "127.0.0.1")
	if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: clipperd\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := readAnswer(t, c, bufio.NewReader(c)); resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
	if closed, _ := endedByServer(t, c); !closed {
		t.Error("the idle keep-alive connection stayed open")
	}
}

// TestSlowBodyCut: a request body that stops coming is cut at the read
// timeout, and the connection closed.
func TestSlowBodyCut(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{ReadTimeout: 300 * time.Millisecond})
	c := rawConn(t, srv, "127.0.0.1")
	if _, err := fmt.Fprintf(c, "POST /api/upload-links HTTP/1.1\r\nHost: clipperd\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"video\":", devKey); err != nil {
		t.Fatal(err)
	}
	if closed, _ := endedByServer(t, c); !closed {
		t.Error("the request whose body stopped coming stayed open")
	}
}

// TestConnCapPerIP: one address holding the cap's idle connections gets its
// next one closed at once, while another address is served.
func TestConnCapPerIP(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{MaxConnsPerIP: 3})
	for range 3 {
		rawConn(t, srv, "127.0.0.2")
	}
	over := rawConn(t, srv, "127.0.0.2")
	if closed, _ := endedByServer(t, over); !closed {
		t.Error("the connection over the cap stayed open")
	}
	// The held connections cost the other clients nothing.
	if resp, body := newClient(t, srv, "").do(http.MethodGet, "/healthz", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("healthz from another address: %d %s", resp.StatusCode, body)
	}
}

// TestUploadBodyProgress: an upload PUT may take longer than the read and
// write timeouts while its bytes keep coming; one whose bytes stop is cut
// after the progress timeout and keeps what arrived.
func TestUploadBodyProgress(t *testing.T) {
	t.Parallel()
	t.Run("steady", func(t *testing.T) {
		srv := startServer(t, Config{ReadTimeout: 200 * time.Millisecond, WriteTimeout: 200 * time.Millisecond,
			UploadProgressTimeout: 5 * time.Second})
		_, session := newClient(t, srv, devKey).openUpload()
		c := rawConn(t, srv, "127.0.0.1")
		sendPut(t, c, session, "bytes 0-9/10", 10, nil)
		for i := range 10 { // a second in all: five times the read and write timeouts
			time.Sleep(100 * time.Millisecond)
			if _, err := c.Write([]byte{byte('0' + i)}); err != nil {
				t.Fatalf("byte %d: %v", i, err)
			}
		}
		if resp, body := readAnswer(t, c, bufio.NewReader(c)); resp.StatusCode != http.StatusOK {
			t.Errorf("slow but steady upload: %d %s, want 200", resp.StatusCode, body)
		}
	})
	t.Run("stalled", func(t *testing.T) {
		srv := startServer(t, Config{UploadProgressTimeout: 300 * time.Millisecond})
		_, session := newClient(t, srv, devKey).openUpload()
		c := rawConn(t, srv, "127.0.0.1")
		sendPut(t, c, session, "bytes 0-99/100", 100, randomBytes(40))
		closed, answer := endedByServer(t, c)
		if !closed || !strings.Contains(answer, "400 Bad Request") || !strings.Contains(answer, "upload progress timeout") {
			t.Fatalf("stalled upload: closed %v, answer %q; want a 400 naming the progress timeout", closed, answer)
		}
		if code, rng := statusQuery(t, session, 100); code != http.StatusPermanentRedirect || rng != "bytes=0-39" {
			t.Errorf("status after the cut: %d Range %q, want 308 bytes=0-39", code, rng)
		}
	})
}

// TestStalledUploadTakenOver: a status query on an upload whose PUT stalled
// answers at once with the bytes held, instead of waiting for the stalled
// client; the stalled PUT is told it was taken over.
func TestStalledUploadTakenOver(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{UploadProgressTimeout: time.Hour})
	id, session := newClient(t, srv, devKey).openUpload()
	stalled := rawConn(t, srv, "127.0.0.1")
	sendPut(t, stalled, session, "bytes 0-99/100", 100, randomBytes(40))
	// Wait until the 40 bytes are on disk, so the answer is known.
	file := filepath.Join(srv.dir, "uploads", id+".bin")
	for deadline := time.Now().Add(guard); ; time.Sleep(10 * time.Millisecond) {
		if st, err := os.Stat(file); err == nil && st.Size() == 40 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stalled PUT's 40 bytes never reached the disk")
		}
	}
	if code, rng := statusQuery(t, session, 100); code != http.StatusPermanentRedirect || rng != "bytes=0-39" {
		t.Errorf("status query: %d Range %q, want 308 bytes=0-39", code, rng)
	}
	resp, body := readAnswer(t, stalled, bufio.NewReader(stalled))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "a newer request on this upload took over after 40 of 100 bytes") {
		t.Errorf("stalled PUT: %d %s, want a 400 saying it was taken over", resp.StatusCode, body)
	}
}

// TestMediaDownloadOutlastsWriteTimeout: a media download that takes
// longer than the write timeout on a slow reader completes, since each
// write gets the timeout instead of the whole answer.
func TestMediaDownloadOutlastsWriteTimeout(t *testing.T) {
	t.Parallel()
	data := randomBytes(16 << 20) // more than loopback's socket buffers take at once
	media := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "c1.mp4", time.Time{}, bytes.NewReader(data))
	})
	ts := httptest.NewUnstartedServer(progressWrites(media, 500*time.Millisecond))
	ts.Config.WriteTimeout = 500 * time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)

	resp, err := (&http.Client{Timeout: time.Minute}).Get(ts.URL + "/media/p1/c1.mp4")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got bytes.Buffer
	chunk := make([]byte, 256<<10)
	for { // about 1.3 s in all at this pace, with no write waiting long
		n, err := io.ReadFull(resp.Body, chunk)
		got.Write(chunk[:n])
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("after %d bytes: %v", got.Len(), err)
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Errorf("downloaded %d of %d bytes", got.Len(), len(data))
	}
}
