package pipeline

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// hookRecorder receives webhook deliveries.
type hookRecorder struct {
	mu   sync.Mutex
	reqs []hookReq
	srv  *httptest.Server
}

type hookReq struct {
	body              []byte
	sig, salt, tstamp string
}

func newHookRecorder(t *testing.T) *hookRecorder {
	h := &hookRecorder{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.reqs = append(h.reqs, hookReq{body, r.Header.Get("X-Svc-Signature"), r.Header.Get("X-Svc-Salt"), r.Header.Get("X-Svc-Timestamp")})
		h.mu.Unlock()
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookRecorder) wait(t *testing.T, n int) []hookReq {
	t.Helper()
	var out []hookReq
	storetest.Eventually(t, fmt.Sprintf("%d webhook requests", n), func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		out = append([]hookReq(nil), h.reqs...)
		return len(out) >= n
	})
	return out
}

// verifySignature recomputes X-Svc-Signature independently of outbound.Sign.
func verifySignature(t *testing.T, r hookReq, key string) {
	t.Helper()
	m := hmac.New(sha256.New, []byte(key))
	m.Write(r.body)
	m.Write([]byte(r.salt))
	if want := hex.EncodeToString(m.Sum(nil)); r.sig != want {
		t.Errorf("X-Svc-Signature = %q, want HMAC-SHA256(first key, body+salt) = %q", r.sig, want)
	}
	if len(r.salt) != 16 || r.tstamp == "" {
		t.Errorf("salt %q / timestamp %q malformed", r.salt, r.tstamp)
	}
}

// startDispatcher runs the real outbound dispatcher, on a job system over
// e's store that works no project run, and wires the runner's Deliveries
// to it. Private webhooks are
// allowed: the test receivers are on loopback.
func (e *env) startDispatcher() {
	e.t.Helper()
	js, err := jobs.Open(e.t.Context(), jobs.Config{Store: e.st, FetchPollInterval: 100 * time.Millisecond,
		Workers: map[string]int{jobs.QueuePipeline: 0, jobs.QueueImport: 0}})
	if err != nil {
		e.t.Fatal(err)
	}
	d, err := outbound.New(outbound.Config{Store: e.st, Jobs: js, DataDir: e.dir, RetryBase: 30 * time.Millisecond, AllowPrivateWebhooks: true})
	if err != nil {
		e.t.Fatal(err)
	}
	// Every kind is registered with every client that works, as in a
	// server: the leader's rescuer discards running jobs of kinds it does
	// not know, project runs included.
	cfg := e.cfg
	cfg.Jobs = js
	if _, err := New(cfg); err != nil {
		e.t.Fatal(err)
	}
	if err := js.Start(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { js.Stop(context.Background()) })
	e.cfg.Deliveries = d
}

func TestUploadRunsToCompleteWithClips(t *testing.T) {
	t.Parallel()
	src := testVideo(t)
	e := newEnv(t)
	hooks := newHookRecorder(t)
	e.startDispatcher()
	r := e.runner()

	var seen []string
	var seenMu sync.Mutex
	r.hook = func(_ context.Context, point string) {
		seenMu.Lock()
		seen = append(seen, point)
		seenMu.Unlock()
	}
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL: e.upload(src),
		CurationPref: &apitypes.CurationPref{
			Model:         apitypes.ModelClipBasic,
			Range:         &apitypes.Range{StartSec: f64(4), EndSec: f64(34)},
			ClipDurations: [][2]float64{{6, 12}},
			TopicKeywords: []string{"testing", "machine learning"},
			Genre:         "Podcast",
		},
		RenderPref:        &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait},
		UploadedVideoAttr: &apitypes.UploadedVideoAttr{Title: "Team talk"},
		ConclusionActions: []apitypes.ConclusionAction{
			{Type: apitypes.ActionWebhook, URL: hooks.srv.URL + "/done"},
			{Type: apitypes.ActionEmail, Email: "owner@example.com"},
		},
	})
	p := e.waitDone(id)
	if p.Stage != apitypes.StageComplete {
		t.Fatalf("stage = %s, error %v; want COMPLETE", p.Stage, deref(p.Error))
	}
	if p.Error != nil || p.StallCount != nil {
		t.Errorf("a clean run has error %v and stallCount %v", deref(p.Error), deref(p.StallCount))
	}
	seenMu.Lock()
	wantOrder := []apitypes.Stage{apitypes.StageImport, apitypes.StageCurate, apitypes.StageRefine, apitypes.StageRender}
	for i, s := range wantOrder {
		if i >= len(seen) || seen[i] != string(s) {
			t.Errorf("stage order = %v, want it to start with %v", seen, wantOrder)
			break
		}
	}
	seenMu.Unlock()
	if p.CreditsCharged != quota.ReserveCredits {
		t.Errorf("credits charged = %d, want the 10-credit minimum for 30 s", p.CreditsCharged)
	}

	clips, err := e.st.ListClips(context.Background(), id, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) == 0 {
		t.Fatal("no clips")
	}
	mediaDir := filepath.Join(e.dir, "media", id)
	total := sourceSize(filepath.Join(mediaDir, sourceName))
	// The run's temporary files go with it.
	tmp := filepath.Join(e.dir, "tmp", id+".run0")
	storetest.Eventually(t, "the run's temporary directory "+tmp+" removed after COMPLETE", func() bool { return !dirExists(tmp) })
	for i, c := range clips {
		exp := filepath.Join(mediaDir, c.CurationID+".mp4")
		prev := filepath.Join(mediaDir, c.CurationID+".preview.mp4")
		if c.ID != id+"."+c.CurationID || c.ProjectID != id || c.OrgID != testOrg || c.UserID != testUser || c.RunID == "" {
			t.Errorf("clip %d ids: %+v", i, c)
		}
		// Stored relative to the public URL, which each read puts in front.
		if c.URIForExport != "/media/"+id+"/"+c.CurationID+".mp4" || c.URIForPreview != "/media/"+id+"/"+c.CurationID+".preview.mp4" {
			t.Errorf("clip %d addresses %q %q", i, c.URIForExport, c.URIForPreview)
		}
		if c.StorageUsed != sourceSize(exp)+sourceSize(prev) || sourceSize(prev) == 0 {
			t.Errorf("clip %d storageUsed %d, files %d + %d", i, c.StorageUsed, sourceSize(exp), sourceSize(prev))
		}
		total += c.StorageUsed
		w, h, dur := probeSize(t, exp)
		if w != 1080 || h != 1920 {
			t.Errorf("clip %d export is %dx%d, want portrait 1080x1920", i, w, h)
		}
		if dur < 6-0.2 || dur > 12+0.2 {
			t.Errorf("clip %d lasts %.2f s, want within clipDurations [6,12]", i, dur)
		}
		if d := float64(c.DurationMs) / 1000; d < dur-0.1 || d > dur+0.1 {
			t.Errorf("clip %d durationMs %d disagrees with ffprobe %.2f s", i, c.DurationMs, dur)
		}
		if len(c.TimeRanges) != 1 || c.TimeRanges[0][0] < 4000-200 || c.TimeRanges[0][1] > 34000+200 || c.TimeRanges[0][1] <= c.TimeRanges[0][0] {
			t.Errorf("clip %d timeRanges %v not inside the range 4000..34000 ms", i, c.TimeRanges)
		}
		if i > 0 && c.TimeRanges[0][0] < clips[i-1].TimeRanges[0][1] {
			t.Errorf("clips %d and %d overlap: %v %v", i-1, i, clips[i-1].TimeRanges, c.TimeRanges)
		}
		if strings.Join(c.Keywords, ",") != "testing,machine learning" || c.Hashtags != "#testing #MachineLearning #Podcast" {
			t.Errorf("clip %d keywords %v hashtags %q", i, c.Keywords, c.Hashtags)
		}
		if !strings.Contains(c.Title, "Team talk") || c.Description == "" || c.Text != "" || c.Genre != "Podcast" || c.PromptName == "" {
			t.Errorf("clip %d text fields: title %q description %q text %q genre %q promptName %q", i, c.Title, c.Description, c.Text, c.Genre, c.PromptName)
		}
		if c.CreatedAt.IsZero() || c.UpdatedAt.IsZero() || c.ProductTier != "PRO" || c.RenderPref == nil || c.RenderPref.LayoutAspectRatio != apitypes.AspectPortrait {
			t.Errorf("clip %d createdAt %v updatedAt %v tier %q renderPref %+v", i, c.CreatedAt, c.UpdatedAt, c.ProductTier, c.RenderPref)
		}
	}
	if p.StorageSize != total {
		t.Errorf("project storageSize = %d, want source + renders = %d", p.StorageSize, total)
	}

	// The COMPLETE webhook, verified like a receiver would.
	reqs := hooks.wait(t, 1)
	verifySignature(t, reqs[0], testKey)
	var payload apitypes.WebhookPayload
	if err := json.Unmarshal(reqs[0].body, &payload); err != nil {
		t.Fatal(err)
	}
	if payload.ProjectID != id || payload.Stage != apitypes.StageComplete || payload.ClipCount != len(clips) || payload.Error != nil {
		t.Errorf("webhook payload %+v", payload)
	}
	// The email, written to the outbox without SMTP.
	var files []string
	storetest.Eventually(t, "one .eml in the outbox", func() bool {
		files, _ = filepath.Glob(filepath.Join(e.dir, "outbox", "*.eml"))
		return len(files) == 1
	})
	if data, _ := os.ReadFile(files[0]); !strings.Contains(string(data), "To: <owner@example.com>") || !strings.Contains(string(data), id) {
		t.Errorf("email:\n%s", data)
	}
}

func TestSkipCurateMakesOneClipOfTheRange(t *testing.T) {
	src := testVideo(t)
	probes := toolexectest.CountRuns(t, "ffprobe")
	e := newEnv(t)
	e.runner()
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{SkipCurate: yes(), Range: &apitypes.Range{StartSec: f64(2), EndSec: f64(9)}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare, EnableFitLayout: yes(), EnableWatermark: yes()},
	})
	p := e.waitDone(id)
	if p.Stage != apitypes.StageComplete {
		t.Fatalf("stage = %s, error %v", p.Stage, deref(p.Error))
	}
	clips, err := e.st.ListClips(context.Background(), id, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 1 {
		t.Fatalf("skipCurate gave %d clips, want 1", len(clips))
	}
	// The source is probed once, at IMPORT, and the one export once, by the render.
	if n := probes(); n != 2 {
		t.Errorf("the run ran ffprobe %d times, want 2", n)
	}
	c := clips[0]
	if c.TimeRanges[0][0] < 2000-200 || c.TimeRanges[0][0] > 2000+200 || c.TimeRanges[0][1] < 9000-200 || c.TimeRanges[0][1] > 9000+200 {
		t.Errorf("timeRanges %v, want the whole range [2000, 9000]", c.TimeRanges)
	}
	w, h, dur := probeSize(t, filepath.Join(e.dir, "media", id, c.CurationID+".mp4"))
	if w != 1080 || h != 1080 || dur < 7-0.2 || dur > 7+0.2 {
		t.Errorf("export %dx%d %.2f s, want square 1080x1080 of 7 s", w, h, dur)
	}
	if c.RenderPref == nil || !isTrue(c.RenderPref.EnableFitLayout) || !isTrue(c.RenderPref.EnableWatermark) {
		t.Errorf("clip renderPref %+v does not report fit and watermark", c.RenderPref)
	}
}

func TestTextUploadStallsForGoodAndNotifiesFailure(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	e := newEnv(t)
	hooks := newHookRecorder(t)
	e.startDispatcher()
	e.runner()
	txt := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(txt, []byte(strings.Repeat("these are meeting notes, not a video\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL: e.upload(txt),
		ConclusionActions: []apitypes.ConclusionAction{
			{Type: apitypes.ActionWebhook, URL: hooks.srv.URL, NotifyFailure: true},
			{Type: apitypes.ActionEmail, Email: "quiet@example.com"}, // no notifyFailure: stays silent
		},
	})
	p := e.waitDone(id)
	if p.Stage != apitypes.StageStalled {
		t.Fatalf("stage = %s, want STALLED", p.Stage)
	}
	if p.Error == nil || !strings.Contains(*p.Error, "not a video") || !strings.Contains(*p.Error, "IMPORT") {
		t.Errorf("error = %v, want it to say the upload is not a video", deref(p.Error))
	}
	if p.StallCount == nil || *p.StallCount != 1 || !p.RetryAt.IsZero() {
		t.Errorf("stallCount %v retryAt %q, want 1 and no retry", deref(p.StallCount), p.RetryAt)
	}
	expectRefunded(t, e, p)
	// Several scan intervals later nothing has retried it.
	time.Sleep(10 * e.cfg.PollInterval)
	if p2 := e.project(id); p2.Stage != apitypes.StageStalled || *p2.StallCount != 1 {
		t.Errorf("permanent failure was retried: stage %s stallCount %v", p2.Stage, deref(p2.StallCount))
	}
	reqs := hooks.wait(t, 1)
	verifySignature(t, reqs[0], testKey)
	var payload apitypes.WebhookPayload
	if err := json.Unmarshal(reqs[0].body, &payload); err != nil {
		t.Fatal(err)
	}
	if payload.Stage != apitypes.StageStalled || payload.Error == nil || *payload.Error != *p.Error {
		t.Errorf("failure webhook payload %+v", payload)
	}
	ds, err := e.st.ProjectDeliveries(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Kind != apitypes.ActionWebhook {
		t.Errorf("deliveries %+v, want only the notifyFailure webhook", ds)
	}
}

func TestRestartDuringRenderResumesToComplete(t *testing.T) {
	t.Parallel()
	src := testVideo(t)
	e := newEnv(t)
	r1, js1 := e.process()
	rendering := make(chan struct{})
	var once sync.Once
	r1.hook = func(ctx context.Context, point string) {
		if point == "render 0" {
			once.Do(func() { close(rendering) })
			<-ctx.Done() // hold the run in RENDER until the process stops
		}
	}
	e.start(r1, js1)
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(20)}, ClipDurations: [][2]float64{{5, 9}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectLandscape},
	})
	select {
	case <-rendering:
	case <-time.After(finishWait):
		t.Fatalf("never reached RENDER; stage %s error %v", e.project(id).Stage, deref(e.project(id).Error))
	}
	stop(r1, js1) // no grace: the run is cut short and handed back
	// Queued again by the stop: a client polling through the restart
	// never sees the interruption as a stall.
	if p := e.project(id); p.Stage != apitypes.StageQueued || p.StallCount == nil || *p.StallCount != 1 || p.Error != nil {
		t.Fatalf("after stop the project is %s (stallCount %v, error %v), want QUEUED, 1 stall, no error",
			p.Stage, deref(p.StallCount), deref(p.Error))
	}

	e.runner()
	p := e.waitDone(id)
	if p.Stage != apitypes.StageComplete {
		t.Fatalf("after restart stage = %s, error %v", p.Stage, deref(p.Error))
	}
	if p.StallCount == nil || *p.StallCount < 1 {
		t.Errorf("stallCount = %v, want >= 1 after the interruption", deref(p.StallCount))
	}
	clips, err := e.st.ListClips(context.Background(), id, 0, 100)
	if err != nil || len(clips) == 0 {
		t.Fatalf("clips %v, %v", clips, err)
	}
	if w, h, _ := probeSize(t, filepath.Join(e.dir, "media", id, clips[0].CurationID+".mp4")); w != 1920 || h != 1080 {
		t.Errorf("export %dx%d, want landscape 1920x1080", w, h)
	}
}

func TestTransientFailureRetriedWithBackoffThenGivesUp(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		http.Error(w, "try later", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	e := newEnv(t)
	e.cfg.AllowPrivateImports = true // the test server is on loopback
	e.cfg.MaxRetries = 2
	e.runner()
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:          srv.URL + "/talk.mp4",
		ConclusionActions: []apitypes.ConclusionAction{{Type: apitypes.ActionEmail, Email: "ops@example.com", NotifyFailure: true}},
	})
	p := e.waitDone(id) // found by the scan loop, never submitted
	if p.Stage != apitypes.StageStalled || p.StallCount == nil || *p.StallCount != 3 {
		t.Fatalf("stage %s stallCount %v, want STALLED after 3 stalls (2 retries)", p.Stage, deref(p.StallCount))
	}
	if !strings.Contains(*p.Error, "503") || !strings.Contains(*p.Error, "not retried") {
		t.Errorf("error = %q", *p.Error)
	}
	expectRefunded(t, e, p)
	mu.Lock()
	if calls != 3 {
		t.Errorf("source fetched %d times, want 3", calls)
	}
	mu.Unlock()
	ds, _ := e.st.ProjectDeliveries(context.Background(), id)
	if len(ds) != 1 || ds[0].Kind != apitypes.ActionEmail {
		t.Errorf("deliveries %+v, want one failure email for the final stall only", ds)
	}
	var m outbound.Email
	if err := json.Unmarshal([]byte(ds[0].Body), &m); err != nil || !strings.Contains(m.Subject, "STALLED") || !strings.Contains(m.Text, "503") {
		t.Errorf("email %+v (%v)", m, err)
	}
}

func TestMonthlyCapAfterProbeStallsNamingTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cfg.MonthlyCredits = 30
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	id := e.create(apitypes.CreateProjectRequest{VideoURL: "up_x"})
	j := &job{p: e.project(id), span: mediaSpan(0, 25*60)}    // 25 minutes: 25 credits, 15 beyond the reserve
	e.create(apitypes.CreateProjectRequest{VideoURL: "up_y"}) // another project's reserve: 20 of 30 used
	err = r.chargeCredits(context.Background(), j)
	if err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "monthly API cap of 30 credits") {
		t.Fatalf("charge = %v, want a permanent error naming the monthly cap", err)
	}
	e.cfg.MonthlyCredits = 900
	r2, _ := e.newRunner()
	if err := r2.chargeCredits(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	if err := r2.chargeCredits(context.Background(), j); err != nil { // a retry charges nothing more
		t.Fatal(err)
	}
	used, _ := e.st.CreditsUsed(context.Background(), testOrg)
	if j.p.CreditsCharged != 25 || used != 10+10+15 {
		t.Errorf("charged %d on the project, %d used this month; want 25 and 35", j.p.CreditsCharged, used)
	}
}

// expectRefunded checks that a project which failed at IMPORT got its
// credits back, once, and is the org's only project.
func expectRefunded(t *testing.T, e *env, p *store.Project) {
	t.Helper()
	if p.RefundStatus == nil || *p.RefundStatus != store.RefundStatusRefunded || p.CreditsCharged != 0 {
		t.Errorf("refundStatus %v creditsCharged %d, want REFUNDED and 0", deref(p.RefundStatus), p.CreditsCharged)
	}
	if used, err := e.st.CreditsUsed(context.Background(), testOrg); err != nil || used != 0 {
		t.Errorf("credits used this month = %d (%v), want 0 after the refund", used, err)
	}
}

func dirExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
