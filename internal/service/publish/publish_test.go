package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs/jobstest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

const (
	testOrg     = "org-1"
	testKey     = "ck_first_key"
	testProject = "prj_pub"
	testClip    = "c01"
	mediaURL    = "http://clipperd.test/media/prj_pub/c01.mp4"
	waitLimit   = 20 * time.Second
)

// env is a store with an org, a key and one rendered clip on disk, at a
// clock the test moves.
type env struct {
	t       *testing.T
	st      *store.Store
	dataDir string
	media   *blob.Dir // the data directory's store
	render  []byte
	now     atomic.Int64 // Unix nanoseconds
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, dataDir: t.TempDir(), render: []byte("not really an mp4, but bytes to copy")}
	e.now.Store(time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC).UnixNano())
	ctx := context.Background()
	st, err := store.Open(ctx, e.dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	st.SetClock(func() time.Time { return time.Unix(0, e.now.Load()).UTC() })
	e.st = st
	if e.media, err = blob.NewDir(e.dataDir, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureKey(ctx, testKey, testOrg, "user-1"); err != nil {
		t.Fatal(err)
	}
	clip := store.Clip{ID: testProject + "." + testClip, CurationID: testClip, URIForExport: mediaURL}
	if err := st.ReplaceClips(ctx, testProject, testOrg, []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	media := filepath.Join(e.dataDir, "media", testProject, testClip+".mp4")
	if err := os.MkdirAll(filepath.Dir(media), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(media, e.render, 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) clock() time.Time { return time.Unix(0, e.now.Load()).UTC() }

func (e *env) advance(d time.Duration) { e.now.Add(int64(d)) }

// account connects a TWITTER account publishing to dest.
func (e *env) account(dest string) string {
	e.t.Helper()
	a, err := e.st.ConnectSocialAccountTo(context.Background(), testOrg,
		apitypes.SocialAccount{Platform: "TWITTER", ExtUserName: "Tw", SubAccountID: "sub-1"}, dest)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.PostAccountID
}

func (e *env) content(account string) store.PostContent {
	return store.PostContent{ProjectID: testProject, ClipID: testClip, PostAccountID: account, SubAccountID: "sub-1",
		Title: "Launch", Description: "It ships #go", Privacy: "public", MediaType: "VIDEO"}
}

func (e *env) post(account string) *store.Post {
	e.t.Helper()
	p, err := e.st.CreatePost(context.Background(), testOrg, e.content(account), store.PostLimits{}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// newWorker opens a job system on e's store, as a (re)started server does,
// and registers a worker with it; nothing runs before its Start, and the
// test's end stops it before the store closes.
func (e *env) newWorker(cfg WorkerConfig) (*Worker, *jobs.Jobs) {
	e.t.Helper()
	js, err := jobs.Open(e.t.Context(), jobs.Config{Store: e.st, FetchPollInterval: 100 * time.Millisecond})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { js.Stop(context.Background()) })
	cfg.Store, cfg.Media, cfg.Jobs = e.st, e.media, js
	w, err := NewWorker(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return w, js
}

// startWorker is newWorker started, after it adopted the pending posts
// (e.post makes them without a job).
func (e *env) startWorker(cfg WorkerConfig) (*Worker, *jobs.Jobs) {
	e.t.Helper()
	w, js := e.newWorker(cfg)
	if err := w.Adopt(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	if err := js.Start(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	return w, js
}

// settled waits until post id is no longer pending.
func (e *env) settled(id string) *store.Post {
	e.t.Helper()
	return e.waitPost(id, "settled", func(p *store.Post) bool { return p.Status != store.PostPending })
}

// waitPost polls post id until done holds, calling tick before each look.
func (e *env) waitPost(id, what string, done func(*store.Post) bool, tick ...func()) *store.Post {
	e.t.Helper()
	var p *store.Post
	storetest.Eventually(e.t, "post "+id+" "+what, func() bool {
		for _, f := range tick {
			f()
		}
		var err error
		if p, err = e.st.GetPost(context.Background(), id); err != nil {
			e.t.Fatal(err)
		}
		return done(p)
	})
	return p
}

// readDir lists the names in dir.
func readDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	return names
}

func TestDirPublishesTheClipAndItsPost(t *testing.T) {
	e := newEnv(t)
	account := e.account(store.PublishToDir)
	p := e.post(account)
	e.startWorker(WorkerConfig{})

	got := e.settled(p.ID)
	want := filepath.Join(e.dataDir, "published", account, p.ID)
	// The location is the post's key, relative to the data directory.
	if key := "published/" + account + "/" + p.ID; got.Status != store.PostPublished || got.Location != key || !got.PublishedAt.Equal(e.clock()) {
		t.Fatalf("post = %+v, want published to %s at %s", got, key, e.clock())
	}
	if names := readDir(t, filepath.Join(e.dataDir, "published", account)); len(names) != 1 || names[0] != p.ID {
		t.Fatalf("the account's directory holds %v, want only %s", names, p.ID)
	}
	if names := readDir(t, want); strings.Join(names, ",") != "clip.mp4,post.json" {
		t.Fatalf("the post's directory holds %v", names)
	}
	if clip, _ := os.ReadFile(filepath.Join(want, "clip.mp4")); !bytes.Equal(clip, e.render) {
		t.Fatalf("clip.mp4 = %q, want the export render", clip)
	}
	var doc map[string]any
	data, _ := os.ReadFile(filepath.Join(want, "post.json"))
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("post.json: %v\n%s", err, data)
	}
	wantDoc := map[string]any{
		"postId": p.ID, "platform": "TWITTER", "postAccountId": account, "subAccountId": "sub-1",
		"contentId": testProject + "." + testClip, "title": "Launch", "description": "It ships #go", "privacy": "public",
		"mediaType": "VIDEO", "publishedAt": store.Timestamp(e.clock()),
	}
	if len(doc) != len(wantDoc) {
		t.Errorf("post.json has keys %v, want those of %v (no scheduleId for a post task)", doc, wantDoc)
	}
	for k, v := range wantDoc {
		if doc[k] != v {
			t.Errorf("post.json %s = %v, want %v", k, doc[k], v)
		}
	}
}

// A crash after the post's post.json was written but before the post was
// recorded published leaves it pending; the next worker finds post.json,
// records the first publication and writes nothing again. An attempt cut
// short before its post.json is made again.
func TestDirPublicationCutShortByACrashIsNotRepeated(t *testing.T) {
	e := newEnv(t)
	account := e.account(store.PublishToDir)
	p := e.post(account)
	root := filepath.Join(e.dataDir, "published")
	first := Post{Post: *p, MediaKey: blob.MediaKey(testProject, testClip+".mp4")}
	first.PublishedAt = e.clock()
	if _, err := (Dir{Media: e.media}).Publish(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	// A half-written attempt at another post of the account, as kill -9
	// leaves it: part of a clip.mp4, no post.json.
	other := e.post(account)
	if err := os.MkdirAll(filepath.Join(root, account, other.ID), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, account, other.ID, "clip.mp4"), e.render[:5], 0o644); err != nil {
		t.Fatal(err)
	}
	postJSON := filepath.Join(root, account, p.ID, "post.json")
	before, _ := os.ReadFile(postJSON)

	e.advance(time.Hour)
	e.startWorker(WorkerConfig{})
	got := e.settled(p.ID)
	if got.Status != store.PostPublished || !got.PublishedAt.Equal(first.PublishedAt) {
		t.Fatalf("post = %+v, want published at the first attempt's %s", got, first.PublishedAt)
	}
	if after, _ := os.ReadFile(postJSON); !bytes.Equal(after, before) {
		t.Fatalf("post.json was written again:\n%s\nwas\n%s", after, before)
	}
	if e.settled(other.ID).Status != store.PostPublished {
		t.Fatal("the post whose attempt was cut short was not published")
	}
	if clip, _ := os.ReadFile(filepath.Join(root, account, other.ID, "clip.mp4")); !bytes.Equal(clip, e.render) {
		t.Fatalf("the cut-short post's clip.mp4 = %q, want the whole render", clip)
	}
	names := readDir(t, filepath.Join(root, account))
	if len(names) != 2 || strings.HasPrefix(names[0], ".") || strings.HasPrefix(names[1], ".") {
		t.Fatalf("the account's directory holds %v, want the two posts and no partial one", names)
	}
}

func TestWebhookPublishesSignedAndRetries(t *testing.T) {
	receiver := webhooktest.New(t, 1)
	e := newEnv(t)
	account := e.account("webhook:" + receiver.URL + "/posts")
	p := e.post(account)
	var outcomes webhooktest.Outcomes
	e.startWorker(WorkerConfig{Retry: backoff.Retry{Base: 50 * time.Millisecond}, AllowPrivateWebhooks: true, OnAttempt: outcomes.Record}) // the receiver is on loopback
	done := e.settled(p.ID)
	if done.Status != store.PostPublished || done.Location != receiver.URL+"/posts" || done.Attempts != 1 {
		t.Fatalf("post = %+v, want published to the webhook on the second attempt", done)
	}
	// The destination's kind, never its URL.
	if got, want := outcomes.List(), []string{"webhook " + outbound.OutcomeWillRetry, "webhook " + outbound.OutcomeDelivered}; !slices.Equal(got, want) {
		t.Errorf("attempts reported %q, want %q", got, want)
	}

	got := receiver.Requests()
	if len(got) != 2 {
		t.Fatalf("the receiver got %d calls, want 2", len(got))
	}
	last := got[1]
	if !last.SignedWith(testKey) {
		t.Errorf("signature %q does not verify with the org's first key", last.Header.Get("X-Svc-Signature"))
	}
	if id := last.Header.Get(HeaderPostID); id != p.ID {
		t.Errorf("%s = %q, want %s", HeaderPostID, id, p.ID)
	}
	var doc apitypes.PublishedPost
	if err := json.Unmarshal(last.Body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.PostID != p.ID || doc.MediaURL != mediaURL || doc.ContentID != testProject+"."+testClip || doc.Title != "Launch" ||
		doc.Platform != "TWITTER" || doc.PublishedAt != store.Timestamp(done.PublishedAt) {
		t.Errorf("webhook body = %+v", doc)
	}
}

// TestWebhookToPrivateAddressRefused: unless private webhooks are allowed,
// a webhook destination that connects to a non-public address is never
// called; the post fails at once with the reason and is not retried.
func TestWebhookToPrivateAddressRefused(t *testing.T) {
	receiver := webhooktest.New(t, 0)
	e := newEnv(t)
	p := e.post(e.account("webhook:" + receiver.URL + "/posts"))
	e.startWorker(WorkerConfig{})
	got := e.waitPost(p.ID, "settled", func(p *store.Post) bool { return p.Status != store.PostPending })
	if got.Status != store.PostFailed || got.Attempts != 1 ||
		!strings.Contains(got.LastError, "non-public address 127.0.0.1") ||
		!strings.Contains(got.LastError, "--allow-private-webhooks") {
		t.Fatalf("post = %+v, want failed after 1 attempt naming the refused address and the opt-out", got)
	}
	if n := len(receiver.Requests()); n != 0 {
		t.Errorf("the loopback receiver got %d requests, want none", n)
	}
}

func TestPostGivesUpAfterMaxAttempts(t *testing.T) {
	e := newEnv(t)
	account := e.account(store.PublishToDir)
	if err := os.Remove(filepath.Join(e.dataDir, "media", testProject, testClip+".mp4")); err != nil {
		t.Fatal(err)
	}
	p := e.post(account)
	var outcomes webhooktest.Outcomes
	e.startWorker(WorkerConfig{Retry: backoff.Retry{Base: time.Millisecond, Max: time.Millisecond, Attempts: 3}, OnAttempt: outcomes.Record})
	got := e.settled(p.ID)
	if got.Status != store.PostFailed || got.Attempts != 3 || !strings.Contains(got.LastError, "no such object") {
		t.Fatalf("post = %+v, want failed after 3 attempts saying the render is missing", got)
	}
	if got, want := outcomes.List(), []string{"dir " + outbound.OutcomeWillRetry, "dir " + outbound.OutcomeWillRetry, "dir " + outbound.OutcomeGaveUp}; !slices.Equal(got, want) {
		t.Errorf("attempts reported %q, want %q", got, want)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.dataDir, "published", account)); len(entries) != 0 {
		t.Fatalf("a failed post left %v behind", entries)
	}
}

// TestStopHandsBackThenRestartPublishesOnce: a stop cancels a publication
// in progress (the post stays pending, with no attempt counted, its job
// handed back); the next start publishes it, once: one acknowledged call,
// the post published, its job completed.
func TestStopHandsBackThenRestartPublishesOnce(t *testing.T) {
	var calls atomic.Int32
	arrived := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if calls.Add(1) > 1 {
			return // acknowledged
		}
		close(arrived)
		<-r.Context().Done() // the first process's receiver never answers
	}))
	defer hook.Close()
	e := newEnv(t)
	account := e.account("webhook:" + hook.URL)
	first, firstJobs := e.startWorker(WorkerConfig{AllowPrivateWebhooks: true})
	p, err := e.st.CreatePost(t.Context(), testOrg, e.content(account), store.PostLimits{}, first.Enqueue)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(waitLimit):
		t.Fatal("the webhook was never called")
	}
	grace, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	firstJobs.Stop(grace)
	cancel()
	got, err := e.st.GetPost(t.Context(), p.ID)
	if err != nil || got.Status != store.PostPending || got.Attempts != 0 {
		t.Fatalf("post after the stop = %+v %v, want pending with no attempt", got, err)
	}
	if states := publishJobs(t, firstJobs); !slices.Equal(states, []string{"available/0"}) {
		t.Errorf("jobs after the stop %v; want the cut job handed back, its attempt not counted", states)
	}

	_, next := e.startWorker(WorkerConfig{AllowPrivateWebhooks: true})
	if done := e.settled(p.ID); done.Status != store.PostPublished || done.Attempts != 0 {
		t.Fatalf("post after the restart = %+v, want published", done)
	}
	storetest.Eventually(t, "one publish job, completed on attempt 1", func() bool {
		return slices.Equal(publishJobs(t, next), []string{"completed/1"})
	})
	if n := calls.Load(); n != 2 {
		t.Errorf("the destination got %d calls, want 2: the cut one and the one acknowledged", n)
	}
}

// publishJobs lists the state/attempt of the publish queue's jobs, oldest
// first.
func publishJobs(t *testing.T, js *jobs.Jobs) []string {
	t.Helper()
	return jobstest.States(t, js, jobs.QueuePublish)
}

func TestCheckDestination(t *testing.T) {
	for dest, want := range map[string]string{
		"dir":                             "",
		"webhook:https://hooks.example/p": "",
		"webhook:http://127.0.0.1:9/x":    "",
		"":                                `must be dir or webhook:URL, not ""`,
		"DIR":                             `not "DIR"`,
		"youtube":                         `not "youtube"`,
		"webhook:":                        "must be an absolute http or https URL",
		"webhook:ftp://example.com/x":     `has scheme "ftp"`,
		"https://hooks.example/p":         "must be dir or webhook:URL",
	} {
		err := CheckDestination(dest)
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckDestination(%q) = %v, want nil", dest, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("CheckDestination(%q) = %v, want an error containing %q", dest, err, want)
		}
	}
}

// TestPostCarriesSignedMediaURL: with MediaLinks the clip address a post
// hands to its destination is signed, so the destination can fetch it.
func TestPostCarriesSignedMediaURL(t *testing.T) {
	receiver := webhooktest.New(t, 0)
	e := newEnv(t)
	p := e.post(e.account("webhook:" + receiver.URL + "/posts"))
	links := medialink.New(e.st, "", 0, 0, e.clock)
	e.startWorker(WorkerConfig{MediaLinks: links, AllowPrivateWebhooks: true}) // the receiver is on loopback
	if done := e.settled(p.ID); done.Status != store.PostPublished {
		t.Fatalf("post = %+v, want published", done)
	}
	var doc apitypes.PublishedPost
	if err := json.Unmarshal(receiver.Requests()[0].Body, &doc); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(doc.MediaURL)
	if err != nil || !strings.HasPrefix(doc.MediaURL, mediaURL+"?") {
		t.Fatalf("mediaUrl %q, want the clip's address signed", doc.MediaURL)
	}
	if _, err := links.Check(context.Background(), testProject, testClip+".mp4", u.Query()); err != nil {
		t.Errorf("mediaUrl %q does not verify: %v", doc.MediaURL, err)
	}
}

// Destination names a destination's kind without its URL, which may carry
// a secret token.
func TestDestinationHidesTheURL(t *testing.T) {
	for dest, want := range map[string]string{
		"dir": "dir",
		"webhook:https://hooks.example/p?token=s3cret": "webhook",
		"webhook:ftp://example.com/x":                  "invalid",
		"youtube":                                      "invalid",
	} {
		if got := Destination(dest); got != want {
			t.Errorf("Destination(%q) = %q, want %q", dest, got, want)
		}
	}
}
