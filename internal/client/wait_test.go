package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// stageServer answers GET project with the stages in order, repeating the last.
func stageServer(build func(i int) apitypes.Project) *httptest.Server {
	var mu sync.Mutex
	i := 0
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		p := build(i)
		i++
		mu.Unlock()
		writeJSON(w, 200, p)
	}))
}

var fastWait = WaitOptions{PollInterval: time.Millisecond, MaxPollInterval: 3 * time.Millisecond}

func TestWaitForProjectReportsEveryStage(t *testing.T) {
	seq := []apitypes.Stage{"QUEUED", "QUEUED", "IMPORT", "IMPORT", "IMPORT", "CURATE", "RENDER", "UPLOAD", "COMPLETE"}
	srv := stageServer(func(i int) apitypes.Project {
		return apitypes.Project{ID: "p1", Stage: seq[min(i, len(seq)-1)]}
	})
	defer srv.Close()
	var seen []string
	opts := fastWait
	opts.OnStageChange = func(p *apitypes.Project) { seen = append(seen, string(p.Stage)) }
	p, err := newTestClient(t, srv.URL, nil).WaitForProject(context.Background(), "p1", opts)
	if err != nil || p.Stage != apitypes.StageComplete {
		t.Fatalf("wait: %v %+v", err, p)
	}
	if got := strings.Join(seen, ","); got != "QUEUED,IMPORT,CURATE,RENDER,UPLOAD,COMPLETE" {
		t.Fatalf("stage callbacks %s", got)
	}
}

func TestWaitForProjectStalled(t *testing.T) {
	msg := "render: ffmpeg exited with status 1"
	var count int64 = 2
	srv := stageServer(func(i int) apitypes.Project {
		if i < 2 {
			return apitypes.Project{ID: "p1", Stage: apitypes.StageRender}
		}
		return apitypes.Project{ID: "p1", Stage: apitypes.StageStalled, Error: &msg, StallCount: &count}
	})
	defer srv.Close()
	p, err := newTestClient(t, srv.URL, nil).WaitForProject(context.Background(), "p1", fastWait)
	var se *StalledError
	if !errors.As(err, &se) || p == nil || p.Stage != apitypes.StageStalled || se.Project != p {
		t.Fatalf("want StalledError with the project, got %v %+v", err, p)
	}
	if !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "stallCount 2") {
		t.Fatalf("stalled error lacks error/stallCount: %v", err)
	}
}

func TestWaitForProjectContextNamesLastStage(t *testing.T) {
	srv := stageServer(func(int) apitypes.Project { return apitypes.Project{ID: "p1", Stage: apitypes.StageCurate} })
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	p, err := newTestClient(t, srv.URL, nil).WaitForProject(ctx, "p1", fastWait)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "CURATE") {
		t.Fatalf("want deadline error naming CURATE, got %v", err)
	}
	if p == nil || p.Stage != apitypes.StageCurate {
		t.Fatalf("want the last project seen, got %+v", p)
	}
}

func TestWaitForProjectDeleted(t *testing.T) {
	srv := stageServer(func(int) apitypes.Project {
		return apitypes.Project{ID: "p1", Stage: apitypes.StageImport, IsDeleted: true}
	})
	defer srv.Close()
	_, err := newTestClient(t, srv.URL, nil).WaitForProject(context.Background(), "p1", fastWait)
	if err == nil || !strings.Contains(err.Error(), "deleted") {
		t.Fatalf("want a deleted error, got %v", err)
	}
}

func TestWaitForProjectNotFound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, apitypes.ErrorBody{ErrorName: "Not Found"})
	}))
	defer srv.Close()
	_, err := newTestClient(t, srv.URL, nil).WaitForProject(context.Background(), "gone", fastWait)
	if !IsNotFound(err) {
		t.Fatalf("want not found, got %v", err)
	}
}

// A wait that ends before its first poll reports the project the caller
// handed in, and its stage.
func TestWaitEndingBeforeFirstPollReportsKnownStage(t *testing.T) {
	c := newTestClient(t, "http://127.0.0.1:1", nil) // never reached
	known := &apitypes.Project{ID: "p1", Stage: apitypes.StageQueued}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	p, err := c.WaitForProject(ctx, "p1", WaitOptions{PollInterval: time.Hour, Known: known})
	if p != known || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "last stage QUEUED") {
		t.Fatalf("got %v, %v; want the known project and an error naming stage QUEUED", p, err)
	}
	if c.Stats().Requests != 0 {
		t.Fatalf("sent %d requests before the first interval", c.Stats().Requests)
	}
}

// TestUnpacedPollsWithinAThirdOfTheAge: the plain backoff stretches by half
// per unchanged look, but a project that has run 15 s is looked at again
// within 5 s, and one that has run 90 s within 30 s; a young project keeps
// the first interval, and without a timestamp the backoff stands.
func TestUnpacedPollsWithinAThirdOfTheAge(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	created := func(ago time.Duration) *apitypes.Project {
		return &apitypes.Project{ID: "p1", Stage: apitypes.StageRender, CreatedAt: now.Add(-ago).Format(time.RFC3339Nano)}
	}
	cases := []struct {
		name     string
		p        *apitypes.Project
		interval time.Duration
		want     time.Duration
	}{
		{"15 s old, backoff at 11.25 s", created(15 * time.Second), 11250 * time.Millisecond, 5 * time.Second},
		{"90 s old, backoff at 30 s", created(90 * time.Second), 30 * time.Second, 30 * time.Second},
		{"60 s old, backoff at 30 s", created(60 * time.Second), 30 * time.Second, 20 * time.Second},
		{"3 s old: never under the first interval", created(3 * time.Second), 7500 * time.Millisecond, 5 * time.Second},
		{"backoff already shorter", created(60 * time.Second), 5 * time.Second, 5 * time.Second},
		{"no timestamp", &apitypes.Project{ID: "p1", Stage: apitypes.StageRender}, 11250 * time.Millisecond, 11250 * time.Millisecond},
	}
	for _, c := range cases {
		w := newProjectWait("p1", WaitOptions{Known: c.p})
		w.offset = 0 // the service's clock is this one's
		w.interval = c.interval
		if got := w.unpaced(now); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// outageServer answers its first before requests with before, the next
// outagePolls requests with dropped connections, then 503s, and the rest with
// after; requests returns how many came.
func outageServer(t *testing.T, before int, answer func(w http.ResponseWriter, phase int)) (srv *httptest.Server, requests func() int) {
	const outage = outagePolls
	var mu sync.Mutex
	n := 0
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		switch {
		case i <= before:
			answer(w, 0)
		case i <= before+outage/2:
			dropConnection(t, w)
		case i <= before+outage:
			writeJSON(w, http.StatusServiceUnavailable, apitypes.ErrorBody{ErrorName: "Service Unavailable"})
		default:
			answer(w, 1)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// outagePolls is more failed attempts than two polls' worth of retries.
const outagePolls = 12

// TestWaitRidesOutAnOutage: polls that find the service gone (connections
// dropped, then 503s) say nothing about the project, which the service goes
// on running: the wait keeps polling past the call's attempts and ends
// COMPLETE once the service answers again.
func TestWaitRidesOutAnOutage(t *testing.T) {
	srv, requests := outageServer(t, 0, func(w http.ResponseWriter, _ int) {
		writeJSON(w, http.StatusOK, apitypes.Project{ID: "p1", Stage: apitypes.StageComplete})
	})
	logger := &captureLogger{}
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Logger = logger })
	known := &apitypes.Project{ID: "p1", Stage: apitypes.StageRender}
	p, err := c.WaitForProject(t.Context(), "p1", WaitOptions{PollInterval: time.Millisecond, MaxPollInterval: 3 * time.Millisecond, Known: known})
	if err != nil || p.Stage != apitypes.StageComplete {
		t.Fatalf("wait through an outage: %v %+v", err, p)
	}
	if n := requests(); n <= outagePolls {
		t.Fatalf("%d requests; the outage alone took %d", n, outagePolls)
	}
	// The outage shows at WARN (TF_LOG=INFO): each request sent again, for a
	// dropped connection and for a 503, and each poll ridden out.
	out := logger.text()
	for _, want := range []string{
		"WARN clipper API unavailable (network error); sending the request again map[error:",
		"WARN clipper API unavailable (server error); sending the request again map[error:",
		"WARN clipper project poll failed; riding it out map[error:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

// TestWaitForCensorJobRidesOutAnOutage: the censor job's wait rides an
// outage out like the project's: PROCESSING, the service gone for more than
// a poll's retries, then CONCLUDED.
func TestWaitForCensorJobRidesOutAnOutage(t *testing.T) {
	srv, requests := outageServer(t, 2, func(w http.ResponseWriter, phase int) {
		status := []string{apitypes.CensorProcessing, apitypes.CensorConcluded}[phase]
		writeJSON(w, http.StatusOK, apitypes.CensorJobStatus{Status: status})
	})
	c := newTestClient(t, srv.URL, nil)
	st, err := c.WaitForCensorJob(t.Context(), "cj1", "p1", fastWait)
	if err != nil || st.Status != apitypes.CensorConcluded {
		t.Fatalf("wait through an outage: %v %+v", err, st)
	}
	if n := requests(); n <= 2+outagePolls {
		t.Fatalf("%d requests; the outage alone took %d", n, outagePolls)
	}
}

// TestWaitForCensorJobEnds: FAILED ends the wait with the job's reason for
// the caller; an answer about the job (404) ends it with that answer, sent
// once; a timeout during an outage names the last status and the failure.
func TestWaitForCensorJobEnds(t *testing.T) {
	reason := "clip c9 no longer exists"
	failed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, apitypes.CensorJobStatus{Status: apitypes.CensorFailed, Error: &reason})
	}))
	defer failed.Close()
	st, err := newTestClient(t, failed.URL, nil).WaitForCensorJob(t.Context(), "cj1", "p1", fastWait)
	if err != nil || st.Status != apitypes.CensorFailed || st.Error == nil || *st.Error != reason {
		t.Fatalf("FAILED job: %v %+v", err, st)
	}

	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, apitypes.ErrorBody{ErrorName: "Not Found"})
	}))
	defer gone.Close()
	c := newTestClient(t, gone.URL, nil)
	if _, err := c.WaitForCensorJob(t.Context(), "cj1", "p1", fastWait); !IsNotFound(err) {
		t.Fatalf("want the 404, got %v", err)
	}
	if n := c.Stats().Requests; n != 1 {
		t.Fatalf("%d requests; a 404 is answered once", n)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	st, err = newTestClient(t, refusedURL(t), nil).WaitForCensorJob(ctx, "cj1", "p1", fastWait)
	if !errors.Is(err, context.DeadlineExceeded) || st.Status != apitypes.CensorQueued {
		t.Fatalf("got %v, %+v; want a deadline error and the status QUEUED", err, st)
	}
	for _, want := range []string{"last status QUEUED", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestWaitOutageUntilTimeoutNamesCause: when the timeout ends during an
// outage, the error names the timeout (so the provider says so) and the
// poll failure the wait was riding out.
func TestWaitOutageUntilTimeoutNamesCause(t *testing.T) {
	c := newTestClient(t, refusedURL(t), nil)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	known := &apitypes.Project{ID: "p1", Stage: apitypes.StageCurate}
	p, err := c.WaitForProject(ctx, "p1", WaitOptions{PollInterval: time.Millisecond, MaxPollInterval: 3 * time.Millisecond, Known: known})
	if !errors.Is(err, context.DeadlineExceeded) || p != known {
		t.Fatalf("got %v, %+v; want a deadline error and the known project", err, p)
	}
	for _, want := range []string{"last stage CURATE", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestWaitEndsOnTheServicesWord: an answer about the project (401 here) is
// not ridden out.
func TestWaitEndsOnTheServicesWord(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusUnauthorized, apitypes.ErrorBody{ErrorName: "Unauthorized"})
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, nil)
	_, err := c.WaitForProject(t.Context(), "p1", fastWait)
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized {
		t.Fatalf("want the 401, got %v", err)
	}
	if n := c.Stats().Requests; n != 1 {
		t.Fatalf("%d requests; a 401 is answered once", n)
	}
}

func TestIsTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&TransportError{Method: "GET", Path: "/api/x", Attempts: 5, Err: errors.New("connection reset by peer")}, true},
		{&APIError{StatusCode: 502}, true},
		{&APIError{StatusCode: 429}, true},
		{&APIError{StatusCode: 408}, true},
		{&APIError{StatusCode: 404}, false},
		{&APIError{StatusCode: 400}, false},
		{&MonthlyCapError{api: &APIError{StatusCode: 403}}, false},
		{errors.New("GET /api/x: decoding 200 answer: unexpected EOF"), false},
	} {
		if got := IsTransient(tc.err); got != tc.want {
			t.Errorf("IsTransient(%v) = %t, want %t", tc.err, got, tc.want)
		}
	}
}

// TestRideOutOutagesUntilTheDeadline: a call made with RideOutOutages goes
// on through more failures than its attempts allow (dropped connections,
// then 503s) and succeeds when the service is back; the same call without it
// gives up after its attempts.
func TestRideOutOutagesUntilTheDeadline(t *testing.T) {
	list := func(w http.ResponseWriter, _ int) { writeJSON(w, http.StatusOK, []apitypes.BrandTemplate{}) }
	srv, requests := outageServer(t, 0, list)
	c := newTestClient(t, srv.URL, nil)
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	if _, err := c.ListBrandTemplates(RideOutOutages(ctx)); err != nil {
		t.Fatalf("riding out the outage: %v", err)
	}
	if n := requests(); n != outagePolls+1 {
		t.Fatalf("%d requests, want the outage's %d and one more", n, outagePolls)
	}

	srv, _ = outageServer(t, 0, list)
	c = newTestClient(t, srv.URL, nil)
	if _, err := c.ListBrandTemplates(ctx); err == nil {
		t.Fatal("without riding out, the call outlasted its attempts")
	}
	// Without a deadline nothing is marked: no call retries forever.
	if ridesOut(RideOutOutages(t.Context())) {
		t.Fatal("a context without a deadline rides out outages")
	}
}

// TestRideOutRefusedPost: a POST whose connections are refused (the service
// never saw it) is sent again past its attempts when the call rides out
// outages, and made once when the service takes connections again; without
// riding out it fails after its attempts.
func TestRideOutRefusedPost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"data": apitypes.Collection{CollectionID: "col_1", CollectionName: "talks"}})
	}))
	t.Cleanup(srv.Close)
	const refusals = 3 * outagePolls
	dialer := &refusingDialer{refuse: refusals}
	client := func() *Client {
		return newTestClient(t, srv.URL, func(cfg *Config) {
			cfg.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
		})
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	if _, err := client().CreateCollection(ctx, "talks"); err == nil {
		t.Fatal("without riding out, the create outlasted its attempts")
	}
	dialer.reset(refusals)
	col, err := client().CreateCollection(RideOutOutages(ctx), "talks")
	if err != nil || col.CollectionID != "col_1" {
		t.Fatalf("riding out refused connections: %+v, %v", col, err)
	}
	if n := dialer.dials(); n != refusals+1 {
		t.Fatalf("%d dials, want the %d refused and one more", n, refusals)
	}
}

// refusingDialer refuses its first connections as a stopped server does.
type refusingDialer struct {
	mu     sync.Mutex
	refuse int
	n      int
}

func (d *refusingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.n++
	refused := d.n <= d.refuse
	d.mu.Unlock()
	if refused {
		return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func (d *refusingDialer) reset(refuse int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refuse, d.n = refuse, 0
}

func (d *refusingDialer) dials() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}
