package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// latencies collects request durations and failures from many goroutines.
type latencies struct {
	mu     sync.Mutex
	ds     []time.Duration
	errors int
	first  error
}

func (l *latencies) add(d time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.errors++
		if l.first == nil {
			l.first = err
		}
		return
	}
	l.ds = append(l.ds, d)
}

// percentile is the p-th percentile (0 < p <= 100) of the successful
// requests, nearest rank; 0 without any.
func (l *latencies) percentile(p float64) time.Duration {
	if len(l.ds) == 0 {
		return 0
	}
	s := slices.Clone(l.ds)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(rank, len(s)-1))]
}

// loadClient is an HTTP client of the API with the key, keeping up to n
// connections alive.
func loadClient(n int) *http.Client {
	return &http.Client{
		Timeout:   60 * time.Second,
		Transport: &http.Transport{MaxIdleConns: n, MaxIdleConnsPerHost: n, MaxConnsPerHost: n},
	}
}

// call sends one API request and checks its status; the body is read and
// returned.
func (p *clipperdProc) call(ctx context.Context, c *http.Client, method, rawURL string, body io.Reader, header http.Header, want ...int) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && !slices.Contains(want, resp.StatusCode) {
		err = fmt.Errorf("%s %s: %d %s", method, rawURL, resp.StatusCode, bytes.TrimSpace(data))
	}
	return resp, data, err
}

// getPhase has clients send GET /api/collections?q=mine back to back for d.
func getPhase(ctx context.Context, p *clipperdProc, clients int, d time.Duration) *latencies {
	var lat latencies
	c := loadClient(clients)
	defer c.CloseIdleConnections()
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for time.Now().Before(end) && ctx.Err() == nil {
				start := time.Now()
				_, _, err := p.call(ctx, c, http.MethodGet, p.baseURL+"/api/collections?q=mine", nil, nil, http.StatusOK)
				lat.add(time.Since(start), err)
			}
		})
	}
	wg.Wait()
	return &lat
}

// uploadResult is the upload phase: the duration of each whole upload and
// of each chunk PUT.
type uploadResult struct {
	uploads, chunks latencies
	wall            time.Duration
}

// uploadPhase sends n uploads of size bytes at once, each through the
// resumable protocol in chunks of chunk bytes.
func uploadPhase(ctx context.Context, p *clipperdProc, n int, size, chunk int64) *uploadResult {
	var res uploadResult
	c := loadClient(n)
	defer c.CloseIdleConnections()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(rand.IntN(256))
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			t := time.Now()
			err := p.upload(ctx, c, data, chunk, &res.chunks)
			res.uploads.add(time.Since(t), err)
		})
	}
	wg.Wait()
	res.wall = time.Since(start)
	return &res
}

// upload is one resumable upload of data: link, start, then the chunks.
func (p *clipperdProc) upload(ctx context.Context, c *http.Client, data []byte, chunk int64, chunks *latencies) error {
	_, body, err := p.call(ctx, c, http.MethodPost, p.baseURL+"/api/upload-links",
		bytes.NewReader([]byte(`{"video": {"usecase": "LocalUpload"}}`)), http.Header{"Content-Type": {"application/json"}}, http.StatusOK)
	if err != nil {
		return err
	}
	var link struct {
		Data struct {
			URL string `json:"url"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &link); err != nil {
		return fmt.Errorf("upload link: %w", err)
	}
	resp, _, err := p.call(ctx, c, http.MethodPost, link.Data.URL, nil, http.Header{"X-Store-Resumable": {"start"}}, http.StatusCreated)
	if err != nil {
		return err
	}
	session, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return err
	}
	total := int64(len(data))
	for first := int64(0); first < total; first += chunk {
		last := min(first+chunk, total) - 1
		hdr := http.Header{"Content-Range": {fmt.Sprintf("bytes %d-%d/%d", first, last, total)}}
		t := time.Now()
		_, _, err := p.call(ctx, c, http.MethodPut, p.baseURL+session.Path, bytes.NewReader(data[first:last+1]), hdr,
			http.StatusPermanentRedirect, http.StatusOK)
		chunks.add(time.Since(t), err)
		if err != nil {
			return err
		}
	}
	return nil
}

// idleResult is the idle phase: how many of the connections were opened
// (each answered one request and then stayed silent), what a normal GET
// did meanwhile, and what the server held.
type idleResult struct {
	opened, failed   int
	firstErr         error
	fdsOpen, fdsLate int // server descriptors with the connections open, and hold later
	rssOpen          int64
	normal           latencies // GET /api/collections from another address, while they are open
	normalLate       latencies // the same, hold later
	stillOpenLate    int       // of the opened connections, how many the server has not closed after hold
	hold             time.Duration
}

// idleAddr is the loopback address the idle connections come from, so that
// the normal client (127.0.0.1) is another client address.
var idleAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}

// idlePhase opens n keep-alive connections from idleAddr that each send
// GET /healthz, read the answer and then stay idle; while they are open, a
// client at 127.0.0.1 sends normal GETs.
func idlePhase(ctx context.Context, p *clipperdProc, n int, hold time.Duration) *idleResult {
	res := &idleResult{hold: hold}
	conns := openIdle(ctx, p, n, res)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	res.fdsOpen, _ = p.openFDs()
	res.rssOpen, _ = p.status("VmRSS")
	normalGETs(ctx, p, &res.normal)
	select {
	case <-time.After(hold):
	case <-ctx.Done():
	}
	res.fdsLate, _ = p.openFDs()
	normalGETs(ctx, p, &res.normalLate)
	res.stillOpenLate = stillOpen(conns)
	return res
}

// openIdle opens the idle connections, 200 dials at a time.
func openIdle(ctx context.Context, p *clipperdProc, n int, res *idleResult) []net.Conn {
	addr := p.baseURL[len("http://"):]
	dialer := &net.Dialer{LocalAddr: idleAddr, Timeout: 10 * time.Second}
	var mu sync.Mutex
	var conns []net.Conn
	sem := make(chan struct{}, 200)
	var wg sync.WaitGroup
	for range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := oneRequestThenIdle(ctx, dialer, addr)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.failed++
				if res.firstErr == nil {
					res.firstErr = err
				}
				return
			}
			conns = append(conns, c)
		})
	}
	wg.Wait()
	res.opened = len(conns)
	return conns
}

// oneRequestThenIdle dials addr and sends one keep-alive GET /healthz; the
// connection is returned open once the answer was read.
func oneRequestThenIdle(ctx context.Context, dialer *net.Dialer, addr string) (net.Conn, error) {
	c, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
		_ = c.Close()
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	if err == nil && resp.StatusCode != http.StatusOK {
		err = errors.New("healthz: " + strconv.Itoa(resp.StatusCode))
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}

// normalGETs sends 20 GETs one after another on fresh connections, as a
// new client would, with a 10 s timeout each.
func normalGETs(ctx context.Context, p *clipperdProc, lat *latencies) {
	for range 20 {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		start := time.Now()
		_, _, err := p.call(ctx, c, http.MethodGet, p.baseURL+"/api/collections?q=mine", nil, nil, http.StatusOK)
		lat.add(time.Since(start), err)
	}
}

// stillOpen counts the connections the server has not closed: a short
// read that times out means the peer is still there, EOF or a reset that it
// closed. The reads wait a millisecond each, so 100 run at once.
func stillOpen(conns []net.Conn) int {
	var open atomic.Int64
	var wg sync.WaitGroup
	for part := range slices.Chunk(conns, max(1, len(conns)/100)) {
		wg.Go(func() {
			for _, c := range part {
				_ = c.SetReadDeadline(time.Now().Add(time.Millisecond))
				var b [1]byte
				_, err := c.Read(b[:])
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					open.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return int(open.Load())
}
