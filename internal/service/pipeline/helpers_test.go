package pipeline

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/scratch"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/sources"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo/videotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

const (
	testOrg   = "org-test"
	testUser  = "user-test"
	testKey   = "ck_test_first_key"
	publicURL = "http://clipperd.test:8787"
	// finishWait only guards against a hang: a loaded 2-core machine once took
	// 87 s to transcribe the 40 s test video that takes 5 s alone.
	finishWait = 5 * time.Minute
)

func TestMain(m *testing.M) { videotest.Main(m) }

func requireFFmpeg(t *testing.T) {
	t.Helper()
	toolexectest.RequireMedia(t)
}

// testVideo is one generated 40 s 320x240 talk, shared by the tests
// (read-only: imports hard-link or copy it).
func testVideo(t *testing.T) string {
	t.Helper()
	path, _ := videotest.Shared(t, testvideo.Options{Duration: 40 * time.Second, Width: 320, Height: 240})
	return path
}

type env struct {
	t     *testing.T
	st    *store.Store
	dir   string
	media *blob.Dir // the data directory's store
	cfg   Config
	// r is the runner of the latest process (runner, process), whose hook
	// create uses; before one, created projects get their job by Adopt.
	r *Runner
}

// newEnv opens a store in a temp dir with one org and its first key.
func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, "")
}

// testMasterKey seals the secrets of the tests' stores (a PostgreSQL store
// takes no key file of a data directory).
var testMasterKey, _ = masterkey.Generate()

// onEachEngine runs fn on the test video once with the state on SQLite and
// once on PostgreSQL, each as a subtest with an env of its own.
func onEachEngine(t *testing.T, fn func(t *testing.T, e *env, src string)) {
	src := testVideo(t)
	onEachEngineWith(t, func(t *testing.T, e *env) { fn(t, e, src) })
}

// onEachEngineWith runs fn once with the state on SQLite and once on
// PostgreSQL, each as a subtest with an env of its own.
func onEachEngineWith(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, newEnv(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, newEnvOn(t, storetest.PostgresURL(t))) })
}

// newEnvOn is newEnv with the state in database (a PostgreSQL URL), or in
// the temp dir when "".
func newEnvOn(t *testing.T, database string) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), store.Location(database, dir), store.WithMasterKey(testMasterKey))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.EnsureKey(context.Background(), testKey, testOrg, testUser); err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureKey(context.Background(), "ck_second_key", testOrg, "user-2"); err != nil {
		t.Fatal(err)
	}
	media, err := blob.NewDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, st: st, dir: dir, media: media, cfg: Config{
		Store:          st,
		Media:          media,
		Scratch:        scratch.New(filepath.Join(dir, "tmp")),
		PublicURL:      publicURL,
		MonthlyCredits: 900,
		Logger:         slog.New(slog.NewTextHandler(t.Output(), nil)),
		PollInterval:   30 * time.Millisecond,
		RetryBase:      30 * time.Millisecond,
		// The renders' files, not their encoding, are what these tests
		// look at: the fastest preset spends a third of the default's CPU.
		EncodePreset: "ultrafast",
	}}
}

// newRunner is a Runner from e.cfg on a job system of its own that works
// nothing, for tests that call its stages themselves.
func (e *env) newRunner() (*Runner, error) {
	e.t.Helper()
	js, err := jobs.Open(e.t.Context(), jobs.Config{Store: e.st, InsertOnly: true})
	if err != nil {
		return nil, err
	}
	cfg := e.cfg
	cfg.Jobs = js
	return New(cfg)
}

// process is the pipeline of a new process over e's store: a Runner from
// e.cfg on a job system of its own that works the pipeline queue only (two
// workers), neither started.
func (e *env) process() (*Runner, *jobs.Jobs) {
	e.t.Helper()
	return e.processWith(2)
}

// processWith is process with workers pipeline workers.
func (e *env) processWith(workers int) (*Runner, *jobs.Jobs) {
	e.t.Helper()
	js, err := jobs.Open(e.t.Context(), jobs.Config{Store: e.st, FetchPollInterval: 100 * time.Millisecond,
		Workers: map[string]int{jobs.QueuePipeline: workers, jobs.QueueCopy: 0, jobs.QueueCensor: 0, jobs.QueueDelivery: 0, jobs.QueuePublish: 0}})
	if err != nil {
		e.t.Fatal(err)
	}
	cfg := e.cfg
	cfg.Jobs = js
	r, err := New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	e.r = r
	return r, js
}

// start starts a process's pipeline as a server does: the loop, the
// adoption of queued projects without a job, then the job system. It is
// stopped at cleanup unless the test stopped it.
func (e *env) start(r *Runner, js *jobs.Jobs) {
	e.t.Helper()
	if err := r.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	if err := r.Adopt(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	if err := js.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = r.Stop(ctx)
		js.Stop(ctx)
	})
}

// runner starts a new process's pipeline and returns its Runner.
func (e *env) runner() *Runner {
	e.t.Helper()
	r, js := e.process()
	e.start(r, js)
	return r
}

// stop stops a process at once, without grace, as a shutdown that cuts
// its runs short.
func stop(r *Runner, js *jobs.Jobs) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = r.Stop(ctx)
	js.Stop(ctx)
}

// upload records a completed upload of the bytes at path, stored as the
// upload package stores them.
func (e *env) upload(path string) string {
	e.t.Helper()
	return e.uploadFor(testOrg, path)
}

// uploadFor is upload for org.
func (e *env) uploadFor(org, path string) string {
	e.t.Helper()
	f, err := os.Open(path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		e.t.Fatal(err)
	}
	id := store.NewID("up_")
	if err := blob.Write(context.Background(), e.media, blob.UploadKey(id), f); err != nil {
		e.t.Fatal(err)
	}
	u := &store.Upload{ID: id, OrgID: org, UserID: testUser, Key: blob.UploadKey(id), Total: fi.Size(), Received: fi.Size(), Complete: true}
	if err := e.st.SaveUpload(context.Background(), u); err != nil {
		e.t.Fatal(err)
	}
	return u.ID
}

// create inserts a QUEUED project the way the API does, with its job when
// a process's runner was made.
func (e *env) create(req apitypes.CreateProjectRequest) string {
	e.t.Helper()
	return e.createFor(testOrg, req)
}

// createFor is create for a project of org.
func (e *env) createFor(org string, req apitypes.CreateProjectRequest) string {
	e.t.Helper()
	now := e.st.Now()
	p := &store.Project{}
	p.VideoURL = req.VideoURL
	id := store.NewID("prj_")
	p.ID, p.OrgID, p.UserID = id, org, testUser
	p.Stage, p.CreatedAt, p.UpdatedAt = apitypes.StageQueued, now, now
	p.ProductTier, p.Visibility = store.ProductTier, apitypes.VisibilityDefault
	p.CurationPref, p.RenderPref, p.ImportPref = req.CurationPref, req.RenderPref, req.ImportPref
	p.ConclusionActions, p.UploadedVideoAttr = req.ConclusionActions, req.UploadedVideoAttr
	if req.BrandTemplateID != "" {
		p.BrandTemplateID = &req.BrandTemplateID
	}
	p.SourcePlatform = sources.Platform(req.VideoURL)
	var enqueue store.TxHook
	if e.r != nil {
		enqueue = e.r.Enqueue(p)
	}
	if err := e.st.CreateProjectThen(context.Background(), p, store.Admission{MaxConcurrent: 4, MonthlyCredits: 900, Reserve: quota.ReserveCredits}, enqueue); err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *env) project(id string) *store.Project {
	e.t.Helper()
	p, err := e.st.GetProject(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// waitDone polls until the project is COMPLETE, or STALLED with no retry planned.
func (e *env) waitDone(id string) *store.Project {
	e.t.Helper()
	return e.waitFor(id, func(p *store.Project) bool {
		return p.Stage == apitypes.StageComplete || (p.Stage == apitypes.StageStalled && p.RetryAt.IsZero())
	})
}

func (e *env) waitFor(id string, ok func(*store.Project) bool) *store.Project {
	e.t.Helper()
	deadline := time.Now().Add(finishWait)
	for {
		p := e.project(id)
		if ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("project %s still in %s after %s (error %v)", id, p.Stage, finishWait, deref(p.Error))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func f64(v float64) *float64 { return &v }
func yes() *bool             { b := true; return &b }

// probeSize reads a video's frame size and duration with ffprobe, apart
// from the media package under test.
func probeSize(t *testing.T, path string) (w, h int, dur float64) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=width,height:format=duration", "-of", "default=nw=1", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	for _, line := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		switch k {
		case "width":
			w, _ = strconv.Atoi(v)
		case "height":
			h, _ = strconv.Atoi(v)
		case "duration":
			dur, _ = strconv.ParseFloat(v, 64)
		}
	}
	return w, h, dur
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var _ io.Writer = (*syncBuffer)(nil)
