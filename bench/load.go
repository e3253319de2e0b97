package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// loadKey is the development key of the clipperd processes under load.
const loadKey = "ck_bench_load"

// loadOpts is the load one run puts on clipperd.
type loadOpts struct {
	gets, concurrency  int // GET requests, from that many clients at once
	uploads, uploadMiB int // uploads at once, each of uploadMiB in 4 MiB chunks
	idle               int // idle keep-alive connections from one address
}

// loadResult is what one run measured.
type loadResult struct {
	get, chunk         []time.Duration // latencies of the GETs and the upload chunk PUTs
	idleServed         int             // idle connections answered (then held open)
	idleRefused        int             // idle connections the server closed unanswered
	heldFDs, heldRSSKB int             // the server's descriptors and RSS while they are held
	heldGet            []time.Duration // GETs from another address while they are held
	heldGetFailed      int
	peakRSSKB          int
}

// runLoad measures clipperd under concurrent GETs and uploads and with
// thousands of idle connections from one client, twice: with the limits on
// slow and idle clients lifted, as before they existed, and with their
// defaults. clipperd runs as its own process, so its descriptors and
// memory are its own.
func runLoad(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	var o loadOpts
	fs.IntVar(&o.gets, "gets", 5000, "GET requests")
	fs.IntVar(&o.concurrency, "concurrency", 50, "clients sending the GETs at once")
	fs.IntVar(&o.uploads, "uploads", 8, "uploads at once")
	fs.IntVar(&o.uploadMiB, "upload-mib", 16, "MiB of each upload, sent in 4 MiB chunks")
	fs.IntVar(&o.idle, "idle", 10000, "idle keep-alive connections from one client address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "clipper-bench-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "clipperd")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/clipperd").CombinedOutput(); err != nil {
		return fmt.Errorf("build clipperd: %v\n%s", err, out)
	}
	runs := []struct {
		name  string
		flags []string
	}{
		{"before (no limits)", []string{"--max-conns-per-ip", "0", "--idle-timeout", "10000h", "--read-timeout", "10000h", "--write-timeout", "10000h"}},
		{"after (defaults)", nil},
	}
	var results []loadResult
	for i, run := range runs {
		fmt.Fprintf(os.Stderr, "bench load: %s\n", run.name)
		res, err := measureLoad(ctx, bin, filepath.Join(dir, strconv.Itoa(i)), run.flags, o)
		if err != nil {
			return fmt.Errorf("%s: %w", run.name, err)
		}
		results = append(results, res)
	}
	printLoad(o, runs[0].name, runs[1].name, results[0], results[1])
	return nil
}

// measureLoad starts clipperd with flags and puts the load on it.
func measureLoad(ctx context.Context, bin, dataDir string, flags []string, o loadOpts) (loadResult, error) {
	var res loadResult
	addr, err := freeAddr()
	if err != nil {
		return res, err
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--listen", addr, "--data", dataDir,
		"--rate-limit", "1000000", "--log-level", "error"}, flags...)...)
	cmd.Env = append(os.Environ(), "CLIPPERD_API_KEY="+loadKey)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return res, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	base := "http://" + addr
	// The measuring client comes from 127.0.0.2, the idle connections from
	// 127.0.0.1: two client addresses.
	c := loadClient("127.0.0.2", o.concurrency)
	if err := waitHealthy(ctx, c, base); err != nil {
		return res, err
	}
	if res.get, _, err = getMany(ctx, c, base, o.gets, o.concurrency); err != nil {
		return res, err
	}
	if res.chunk, err = uploadMany(ctx, c, base, o.uploads, o.uploadMiB); err != nil {
		return res, err
	}
	idle := holdIdle(addr, o.idle)
	defer idle.close()
	res.idleServed, res.idleRefused = idle.served, idle.refused
	res.heldFDs, _ = countFDs(cmd.Process.Pid)
	res.heldRSSKB, _ = procStatusKB(cmd.Process.Pid, "VmRSS")
	res.heldGet, res.heldGetFailed, err = getMany(ctx, c, base, 500, 10)
	if err != nil {
		return res, err
	}
	res.peakRSSKB, err = procStatusKB(cmd.Process.Pid, "VmHWM")
	return res, err
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// loadClient sends from the loopback address from, keeping up to conns
// connections alive.
func loadClient(from string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	return &http.Client{
		Timeout:   time.Minute,
		Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: conns},
	}
}

func waitHealthy(ctx context.Context, c *http.Client, base string) error {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, _, err := send(ctx, c, http.MethodGet, base+"/healthz", nil, nil); err == nil {
			return nil
		}
	}
	return errors.New("clipperd did not answer /healthz within 30 s")
}

// send makes one request and reads its answer; a status other than 2xx or
// 308 is an error.
func send(ctx context.Context, c *http.Client, method, url string, body []byte, hdr map[string]string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+loadKey)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusPermanentRedirect {
		return nil, nil, fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, data)
	}
	return resp, data, nil
}

// getMany sends n GETs of the brand templates from workers clients at once
// and returns the latencies of those answered and how many failed.
func getMany(ctx context.Context, c *http.Client, base string, n, workers int) ([]time.Duration, int, error) {
	var (
		mu     sync.Mutex
		lat    []time.Duration
		failed int
		wg     sync.WaitGroup
	)
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	for range workers {
		wg.Go(func() {
			for range jobs {
				start := time.Now()
				_, _, err := send(ctx, c, http.MethodGet, base+"/api/brand-templates?q=mine", nil, nil)
				d := time.Since(start)
				mu.Lock()
				if err != nil {
					failed++
				} else {
					lat = append(lat, d)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(lat) == 0 {
		return nil, failed, errors.New("no GET was answered")
	}
	return lat, failed, ctx.Err()
}

// uploadMany runs n uploads of mib MiB at once, in 4 MiB chunks, and
// returns the latencies of the chunk PUTs.
func uploadMany(ctx context.Context, c *http.Client, base string, n, mib int) ([]time.Duration, error) {
	const chunk = 4 << 20
	data := bytes.Repeat([]byte("clipperd"), mib<<20/8)
	var (
		mu   sync.Mutex
		lat  []time.Duration
		errs []error
		wg   sync.WaitGroup
	)
	for range n {
		wg.Go(func() {
			got, err := uploadOne(ctx, c, base, data, chunk)
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, got...)
			errs = append(errs, err)
		})
	}
	wg.Wait()
	return lat, errors.Join(errs...)
}

func uploadOne(ctx context.Context, c *http.Client, base string, data []byte, chunk int) ([]time.Duration, error) {
	_, body, err := send(ctx, c, http.MethodPost, base+"/api/upload-links", []byte(`{"video":{"usecase":"LocalUpload"}}`),
		map[string]string{"Content-Type": "application/json"})
	if err != nil {
		return nil, err
	}
	var link apitypes.Envelope[apitypes.UploadLink]
	if err := json.Unmarshal(body, &link); err != nil {
		return nil, err
	}
	start, _, err := send(ctx, c, http.MethodPost, link.Data.URL, nil, map[string]string{apitypes.HeaderResumable: "start"})
	if err != nil {
		return nil, err
	}
	session := start.Header.Get("Location")
	var lat []time.Duration
	for off := 0; off < len(data); off += chunk {
		end := min(off+chunk, len(data))
		t0 := time.Now()
		_, _, err := send(ctx, c, http.MethodPut, session, data[off:end],
			map[string]string{"Content-Range": fmt.Sprintf("bytes %d-%d/%d", off, end-1, len(data))})
		if err != nil {
			return lat, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// idleConns are connections that made one request and then wait, as a
// client that opens many and keeps them.
type idleConns struct {
	conns           []net.Conn
	served, refused int
}

// holdIdle opens n connections to addr from 127.0.0.1, each sending one
// GET /healthz and keeping the connection; those the server closes without
// an answer are counted as refused.
func holdIdle(addr string, n int) *idleConns {
	idle := &idleConns{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan struct{}, n)
	for range n {
		next <- struct{}{}
	}
	close(next)
	for range 100 {
		wg.Go(func() {
			for range next {
				c, ok := openIdle(addr)
				mu.Lock()
				if ok {
					idle.served++
					idle.conns = append(idle.conns, c)
				} else {
					idle.refused++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return idle
}

func openIdle(addr string) (net.Conn, bool) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, false
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: clipperd\r\n\r\n"); err != nil {
		_ = c.Close()
		return nil, false
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		_ = c.Close()
		return nil, false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	_ = c.SetDeadline(time.Time{})
	return c, true
}

func (i *idleConns) close() {
	for _, c := range i.conns {
		_ = c.Close()
	}
}

// countFDs is how many descriptors process pid has open.
func countFDs(pid int) (int, error) {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(entries), err
}

// procStatusKB reads a kB field of /proc/pid/status (VmRSS, VmHWM).
func procStatusKB(pid int, field string) (int, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// percentile is the p-th percentile (0-100) of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func p50p99(ds []time.Duration) string {
	return fmt.Sprintf("%s / %s", percentile(ds, 50).Round(10*time.Microsecond), percentile(ds, 99).Round(10*time.Microsecond))
}

func printLoad(o loadOpts, beforeName, afterName string, before, after loadResult) {
	row := func(measure string, f func(r loadResult) string) {
		fmt.Printf("| %s | %s | %s |\n", measure, f(before), f(after))
	}
	fmt.Printf("### clipperd under load: %d GETs from %d clients, %d uploads of %d MiB, %d idle connections\n\n",
		o.gets, o.concurrency, o.uploads, o.uploadMiB, o.idle)
	fmt.Printf("| measure | %s | %s |\n|---|---|---|\n", beforeName, afterName)
	row(fmt.Sprintf("GET p50 / p99 (%d requests, %d at once)", o.gets, o.concurrency), func(r loadResult) string { return p50p99(r.get) })
	row(fmt.Sprintf("upload chunk PUT p50 / p99 (%d uploads at once, 4 MiB chunks)", o.uploads), func(r loadResult) string { return p50p99(r.chunk) })
	row(fmt.Sprintf("%d idle keep-alive connections from one address: answered and held / not answered (closed by clipperd, or no answer in 10 s)", o.idle),
		func(r loadResult) string { return fmt.Sprintf("%d / %d", r.idleServed, r.idleRefused) })
	row("clipperd's open descriptors while they are held", func(r loadResult) string { return strconv.Itoa(r.heldFDs) })
	row("clipperd's RSS while they are held", func(r loadResult) string { return fmt.Sprintf("%.0f MiB", float64(r.heldRSSKB)/1024) })
	row("GET p50 / p99 from another address while they are held (500 requests, failed)",
		func(r loadResult) string { return fmt.Sprintf("%s (%d failed)", p50p99(r.heldGet), r.heldGetFailed) })
	row("clipperd's peak RSS", func(r loadResult) string { return fmt.Sprintf("%.0f MiB", float64(r.peakRSSKB)/1024) })
}
