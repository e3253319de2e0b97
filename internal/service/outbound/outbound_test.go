package outbound

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs/jobstest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

const (
	testOrg      = "org-1"
	firstKey     = "ck_first_key"
	secondKey    = "ck_second_key"
	testProject  = "prj_outbound"
	waitDeadline = 20 * time.Second
)

// newStore opens a store with an org holding two keys and one project.
func newStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.EnsureKey(ctx, firstKey, testOrg, "user-1"); err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureKey(ctx, secondKey, testOrg, "user-2"); err != nil {
		t.Fatal(err)
	}
	p := &store.Project{}
	p.ID, p.OrgID, p.UserID = testProject, testOrg, "user-1"
	p.Stage, p.CreatedAt = apitypes.StageComplete, time.Now()
	if err := st.CreateProject(ctx, p, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	return st, dir
}

// newDispatcher opens a job system on cfg.Store, as a (re)started server
// does, and registers a dispatcher with it; nothing runs before its Start,
// and the test's end stops it before the store closes.
func newDispatcher(t *testing.T, cfg Config) (*Dispatcher, *jobs.Jobs) {
	t.Helper()
	if cfg.RetryBase == 0 {
		cfg.RetryBase = 30 * time.Millisecond
	}
	st, ok := cfg.Store.(*store.Store)
	if !ok {
		t.Fatalf("the job system opens on a *store.Store, not %T", cfg.Store)
	}
	js, err := jobs.Open(t.Context(), jobs.Config{Store: st, FetchPollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { js.Stop(context.Background()) })
	cfg.Jobs = js
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d, js
}

// startDispatcher is newDispatcher started, after it adopted the pending
// deliveries (those enqueue stored without a job).
func startDispatcher(t *testing.T, cfg Config) (*Dispatcher, *jobs.Jobs) {
	t.Helper()
	d, js := newDispatcher(t, cfg)
	if err := d.Adopt(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := js.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return d, js
}

// waitDelivery polls until delivery id leaves the pending status.
func waitDelivery(t *testing.T, st *store.Store, id int64) store.Delivery {
	t.Helper()
	var done store.Delivery
	storetest.Eventually(t, fmt.Sprintf("delivery %d no longer pending", id), func() bool {
		ds, err := st.ProjectDeliveries(context.Background(), testProject)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.ID == id && d.Status != store.DeliveryPending {
				done = d
				return true
			}
		}
		return false
	})
	return done
}

// enqueue stores a pending delivery without a job, as a release before the
// job system did: startDispatcher's adoption gives it one.
func enqueue(t *testing.T, st *store.Store, kind, target, body string) int64 {
	t.Helper()
	d := &store.Delivery{ProjectID: testProject, Kind: kind, Target: target, Body: body}
	if err := st.EnqueueDelivery(context.Background(), d, nil); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func TestWebhookSignedAndRetriedAfterFailure(t *testing.T) {
	st, dir := newStore(t)
	receiver := webhooktest.New(t, 1)

	msg := "boom"
	payload, _ := json.Marshal(apitypes.WebhookPayload{ProjectID: testProject, OrgID: testOrg, Stage: apitypes.StageStalled, Error: &msg, Timestamp: "2025-01-01T00:00:00.000Z"})
	id := enqueue(t, st, apitypes.ActionWebhook, receiver.URL+"/hook", string(payload))
	var outcomes webhooktest.Outcomes
	startDispatcher(t, Config{Store: st, DataDir: dir, AllowPrivateWebhooks: true, OnAttempt: outcomes.Record}) // the receiver is on loopback

	d := waitDelivery(t, st, id)
	if d.Status != store.DeliveryDone || d.Attempts != 2 {
		t.Fatalf("delivery = %s after %d attempts (last error %q), want done after 2", d.Status, d.Attempts, d.LastError)
	}
	if got, want := outcomes.List(), []string{"WEBHOOK " + OutcomeWillRetry, "WEBHOOK " + OutcomeDelivered}; !slices.Equal(got, want) {
		t.Errorf("attempts reported %q, want %q", got, want)
	}
	got := receiver.Requests()
	if len(got) != 2 {
		t.Fatalf("receiver got %d requests, want 2", len(got))
	}
	salts := map[string]bool{}
	for i, r := range got {
		if string(r.Body) != string(payload) {
			t.Errorf("request %d body = %s, want %s", i, r.Body, payload)
		}
		salt := r.Header.Get("X-Svc-Salt")
		if raw, err := hex.DecodeString(salt); err != nil || len(raw) != 8 {
			t.Errorf("request %d salt %q is not 8 bytes of hex", i, salt)
		}
		salts[salt] = true
		if !r.SignedWith(firstKey) {
			t.Errorf("request %d signature %q does not verify with the first key", i, r.Header.Get("X-Svc-Signature"))
		}
		ts, err := strconv.ParseInt(r.Header.Get("X-Svc-Timestamp"), 10, 64)
		if err != nil || time.Since(time.Unix(ts, 0)).Abs() > time.Hour {
			t.Errorf("request %d timestamp %q is not current Unix seconds", i, r.Header.Get("X-Svc-Timestamp"))
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("request %d content type %q", i, ct)
		}
	}
	if len(salts) != 2 {
		t.Errorf("the two attempts reused a salt: %v", salts)
	}
}

func TestWebhookGivesUpAfterMaxAttempts(t *testing.T) {
	st, dir := newStore(t)
	var calls int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		http.Error(w, "nope", http.StatusBadGateway)
	}))
	defer srv.Close()
	id := enqueue(t, st, apitypes.ActionWebhook, srv.URL, `{"projectId":"x"}`)
	var outcomes webhooktest.Outcomes
	startDispatcher(t, Config{Store: st, DataDir: dir, MaxAttempts: 3, RetryBase: 10 * time.Millisecond, AllowPrivateWebhooks: true,
		OnAttempt: outcomes.Record})
	d := waitDelivery(t, st, id)
	if d.Status != store.DeliveryFailed || d.Attempts != 3 {
		t.Fatalf("delivery = %s after %d attempts, want failed after 3", d.Status, d.Attempts)
	}
	if got, want := outcomes.List(), []string{"WEBHOOK " + OutcomeWillRetry, "WEBHOOK " + OutcomeWillRetry, "WEBHOOK " + OutcomeGaveUp}; !slices.Equal(got, want) {
		t.Errorf("attempts reported %q, want %q", got, want)
	}
	if !strings.Contains(d.LastError, "502") {
		t.Errorf("last error %q does not name the receiver's answer", d.LastError)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 3 {
		t.Errorf("receiver called %d times, want 3", calls)
	}
}

func TestBackoffDoublesAndCaps(t *testing.T) {
	st, dir := newStore(t)
	d, _ := newDispatcher(t, Config{Store: st, DataDir: dir, RetryBase: 5 * time.Second, RetryMax: 30 * time.Second})
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got, giveUp := d.retry.After(i + 1); got != w || giveUp {
			t.Errorf("after attempt %d: wait %s (give up %v), want %s", i+1, got, giveUp, w)
		}
	}
	if _, giveUp := d.retry.After(DeliveryRetry.Attempts); !giveUp {
		t.Errorf("no giving up after the default %d attempts", DeliveryRetry.Attempts)
	}
}

func TestEmailWrittenToOutboxWithoutSMTP(t *testing.T) {
	st, dir := newStore(t)
	body := EmailBody(Email{Subject: "Project prj_outbound is COMPLETE — 3 clips", Text: "Your clips are ready.\nhttp://x/media/prj_outbound/c01.mp4"})
	id := enqueue(t, st, apitypes.ActionEmail, "owner@example.com", body)
	startDispatcher(t, Config{Store: st, DataDir: dir, From: "clipperd@example.org"})
	if d := waitDelivery(t, st, id); d.Status != store.DeliveryDone {
		t.Fatalf("delivery = %s (%s), want done", d.Status, d.LastError)
	}
	f, err := os.Open(filepath.Join(dir, "outbox", strconv.FormatInt(id, 10)+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkMessage(t, f, "clipperd@example.org", "owner@example.com")
}

// checkMessage parses an RFC 5322 message and checks its headers and body.
func checkMessage(t *testing.T, r io.Reader, from, to string) {
	t.Helper()
	m, err := mail.ReadMessage(r)
	if err != nil {
		t.Fatalf("not an RFC 5322 message: %v", err)
	}
	if a, err := mail.ParseAddress(m.Header.Get("From")); err != nil || a.Address != from {
		t.Errorf("From = %q", m.Header.Get("From"))
	}
	if a, err := mail.ParseAddress(m.Header.Get("To")); err != nil || a.Address != to {
		t.Errorf("To = %q", m.Header.Get("To"))
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil || subject != "Project prj_outbound is COMPLETE — 3 clips" {
		t.Errorf("Subject = %q (%v)", subject, err)
	}
	if _, err := m.Header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if id := m.Header.Get("Message-ID"); !strings.HasPrefix(id, "<") || !strings.Contains(id, "@") {
		t.Errorf("Message-ID = %q", id)
	}
	if ct, params, err := mime.ParseMediaType(m.Header.Get("Content-Type")); err != nil || ct != "text/plain" || params["charset"] != "utf-8" {
		t.Errorf("Content-Type = %q", m.Header.Get("Content-Type"))
	}
	text, err := io.ReadAll(quotedprintable.NewReader(m.Body))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "Your clips are ready.\r\nhttp://x/media/prj_outbound/c01.mp4") {
		t.Errorf("body = %q", text)
	}
}

// smtpSink is a minimal SMTP server: enough of RFC 5321 for net/smtp.
type smtpSink struct {
	ln   net.Listener
	mu   sync.Mutex
	from string
	rcpt []string
	data string
}

func newSMTPSink(t *testing.T) *smtpSink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpSink{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpSink) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(line string) { _, _ = io.WriteString(c, line+"\r\n") }
	say("220 sink ESMTP ready")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 sink")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			s.mu.Lock()
			s.from = strings.Trim(strings.TrimSpace(line)[len("MAIL FROM:"):], "<> ")
			s.mu.Unlock()
			say("250 ok")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			s.mu.Lock()
			s.rcpt = append(s.rcpt, strings.Trim(strings.TrimSpace(line)[len("RCPT TO:"):], "<> "))
			s.mu.Unlock()
			say("250 ok")
		case cmd == "DATA":
			say("354 end with <CRLF>.<CRLF>")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, ".")) // undo dot-stuffing
			}
			s.mu.Lock()
			s.data = b.String()
			s.mu.Unlock()
			say("250 queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("502 not implemented")
		}
	}
}

func TestEmailSentOverSMTP(t *testing.T) {
	st, dir := newStore(t)
	sink := newSMTPSink(t)
	body := EmailBody(Email{Subject: "Project prj_outbound is COMPLETE — 3 clips", Text: "Your clips are ready.\nhttp://x/media/prj_outbound/c01.mp4"})
	id := enqueue(t, st, apitypes.ActionEmail, "owner@example.com", body)
	startDispatcher(t, Config{Store: st, DataDir: dir, SMTP: sink.ln.Addr().String(), From: "clipperd@example.org"})
	if d := waitDelivery(t, st, id); d.Status != store.DeliveryDone {
		t.Fatalf("delivery = %s (%s), want done", d.Status, d.LastError)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.from != "clipperd@example.org" || len(sink.rcpt) != 1 || sink.rcpt[0] != "owner@example.com" {
		t.Errorf("envelope from %q to %v", sink.from, sink.rcpt)
	}
	checkMessage(t, strings.NewReader(sink.data), "clipperd@example.org", "owner@example.com")
	if entries, _ := os.ReadDir(filepath.Join(dir, "outbox")); len(entries) != 0 {
		t.Errorf("outbox has %d files although SMTP was set", len(entries))
	}
}

// TestStopHandsBackThenRestartSendsOnce: a delivery enqueued with its job
// while the dispatcher runs is cut short by a stop mid-send (the request is
// cancelled, the row stays pending with no attempt counted, the job is
// handed back); the next process sends it, and only it: one acknowledged
// request, one completed job.
func TestStopHandsBackThenRestartSendsOnce(t *testing.T) {
	st, dir := newStore(t)
	var requests atomic.Int32
	arrived, cancelled := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the server notices a closed connection only once the body is read
		if requests.Add(1) > 1 {
			return // acknowledged
		}
		close(arrived)
		<-r.Context().Done() // the first process's receiver never answers
		close(cancelled)
	}))
	defer srv.Close()
	first, firstJobs := startDispatcher(t, Config{Store: st, DataDir: dir, AllowPrivateWebhooks: true})
	dl := &store.Delivery{ProjectID: testProject, Kind: apitypes.ActionWebhook, Target: srv.URL, Body: `{"projectId":"p"}`}
	if err := st.EnqueueDelivery(t.Context(), dl, first.Enqueue(dl)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(storetest.EventuallyBound): // a hang guard
		t.Fatal("the webhook was never sent")
	}
	grace, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	firstJobs.Stop(grace)
	cancel()
	select {
	case <-cancelled:
	case <-time.After(storetest.EventuallyBound): // a hang guard
		t.Fatal("the receiver never saw the request cancelled")
	}
	ds, err := st.ProjectDeliveries(t.Context(), testProject)
	if err != nil || len(ds) != 1 || ds[0].ID != dl.ID || ds[0].Status != store.DeliveryPending || ds[0].Attempts != 0 {
		t.Fatalf("deliveries after the stop = %+v, %v; want the cut-short one still pending with no attempt counted", ds, err)
	}
	if got := deliveryJobs(t, firstJobs); !slices.Equal(got, []string{"available/0"}) {
		t.Errorf("jobs after the stop %v; want the cut job handed back, its attempt not counted", got)
	}

	_, next := startDispatcher(t, Config{Store: st, DataDir: dir, AllowPrivateWebhooks: true})
	if d := waitDelivery(t, st, dl.ID); d.Status != store.DeliveryDone || d.Attempts != 1 {
		t.Fatalf("delivery = %s after %d attempts, want done after 1", d.Status, d.Attempts)
	}
	storetest.Eventually(t, "one delivery job, completed on attempt 1", func() bool {
		return slices.Equal(deliveryJobs(t, next), []string{"completed/1"})
	})
	if n := requests.Load(); n != 2 {
		t.Errorf("receiver got %d requests, want 2: the cut one and the one acknowledged", n)
	}
}

// deliveryJobs lists the state/attempt of the delivery queue's jobs, oldest
// first.
func deliveryJobs(t *testing.T, js *jobs.Jobs) []string {
	t.Helper()
	return jobstest.States(t, js, jobs.QueueDelivery)
}

// TestWebhookToPrivateAddressRefused: unless private webhooks are allowed,
// a webhook whose target connects to a non-public address (here loopback:
// clipperd's own API could be one) is never sent; the delivery fails at
// once, its last error saying why, and is not retried.
func TestWebhookToPrivateAddressRefused(t *testing.T) {
	st, dir := newStore(t)
	receiver := webhooktest.New(t, 0)
	port := receiver.URL[strings.LastIndexByte(receiver.URL, ':')+1:]
	ids := []int64{
		enqueue(t, st, apitypes.ActionWebhook, receiver.URL+"/hook", `{"projectId":"p"}`),
		enqueue(t, st, apitypes.ActionWebhook, "http://localhost:"+port+"/hook", `{"projectId":"p"}`),
	}
	startDispatcher(t, Config{Store: st, DataDir: dir})
	for _, id := range ids {
		d := waitDelivery(t, st, id)
		if d.Status != store.DeliveryFailed || d.Attempts != 1 {
			t.Errorf("delivery %s: %s after %d attempts, want failed after 1", d.Target, d.Status, d.Attempts)
		}
		// localhost may be tried as ::1 first.
		for _, want := range []string{"refusing to connect to the non-public address", "--allow-private-webhooks"} {
			if !strings.Contains(d.LastError, want) {
				t.Errorf("delivery %s: last error %q does not say %q", d.Target, d.LastError, want)
			}
		}
	}
	if got := receiver.Requests(); len(got) != 0 {
		t.Errorf("the loopback receiver got %d requests, want none", len(got))
	}
}
