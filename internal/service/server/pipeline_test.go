package server

import (
	"database/sql"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// pipelineTimeout bounds one project's run in these tests (a 36 s source on
// a slow 2-core machine); it is a limit, not an expectation.
const pipelineTimeout = 5 * time.Minute

// TestUploadToClips is the whole local-file path: chunked upload, a project
// from the upload id with a square layout, the concurrent cap meanwhile,
// and the clips it ends with, probed with ffprobe and served with Range.
func TestUploadToClips(t *testing.T) {
	t.Parallel()
	video := sourceVideo(t)
	srv := startServer(t, Config{Limits: quota.Limits{MaxConcurrent: 1}, ShutdownGrace: 2 * time.Second})
	c := newClient(t, srv, devKey)

	uploadID := c.uploadFile(video, 256<<10)
	body := map[string]any{
		"videoUrl":     uploadID,
		"curationPref": map[string]any{"range": map[string]any{"startSec": 0, "endSec": 24}, "clipDurations": [][]float64{{5, 12}}},
		"renderPref":   map[string]any{"layoutAspectRatio": "square"},
	}
	resp, data := c.create(body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, data)
	}
	if got := resp.Header.Get(apitypes.HeaderUploadID); got != uploadID {
		t.Errorf("x-svc-upload-id %q, want %q", got, uploadID)
	}
	p := decode[apitypes.Project](t, data)

	// With MaxConcurrent 1 a second project waits for the first to finish.
	resp, data = c.create(body)
	wantError(t, resp, data, http.StatusTooManyRequests, "TooManyRequests", "concurrent")
	if resp.Header.Get(apitypes.HeaderCapReason) != apitypes.CapReasonConcurrent {
		t.Errorf("X-Cap-Reason %q", resp.Header.Get(apitypes.HeaderCapReason))
	}

	done := c.waitStage(p.ID, pipelineTimeout, apitypes.StageComplete)
	if done.Error != nil {
		t.Errorf("complete project has error %q", *done.Error)
	}
	// The cap lifts once the first project is done.
	if resp, data := c.create(body); resp.StatusCode != http.StatusCreated {
		t.Errorf("create after the first finished: %d %s", resp.StatusCode, data)
	}

	clips := c.clips(p.ID)
	if len(clips) == 0 {
		t.Fatal("a complete project has no clips")
	}
	for _, clip := range clips {
		if clip.ID != p.ID+"."+clip.CurationID || clip.ProjectID != p.ID || clip.OrgID != DevOrgID {
			t.Errorf("clip ids: %+v", clip)
		}
		if !strings.HasPrefix(clip.URIForExport, srv.URL()+"/media/"+p.ID+"/") {
			t.Errorf("uriForExport %q is not served by this server", clip.URIForExport)
		}
		if len(clip.TimeRanges) == 0 || clip.TimeRanges[0][1] > 24000 {
			t.Errorf("clip %s time ranges %v, want inside the 0-24 s range", clip.ID, clip.TimeRanges)
		}
	}

	// Download the first export and probe it: square, as requested.
	first := clips[0]
	local := filepath.Join(t.TempDir(), "clip.mp4")
	download(t, first.URIForExport, local)
	if w, h := probe(t, local); w != h || w == 0 {
		t.Errorf("export is %dx%d, want a square frame", w, h)
	}
	// Served with Range, no key needed.
	anon := newClient(t, srv, "")
	resp, data = anon.do(http.MethodGet, first.URIForPreview, nil, "Range", "bytes=0-99")
	if resp.StatusCode != http.StatusPartialContent || len(data) != 100 {
		t.Errorf("preview range GET: %d, %d bytes", resp.StatusCode, len(data))
	}

	// Paging: pageSize 1 gives one clip per page, in order.
	resp, data = c.do(http.MethodGet, "/api/exportable-clips?q=findByProjectId&pageSize=1&pageNum=1&projectId="+p.ID, nil)
	if page := decode[[]apitypes.ExportableClip](t, data); resp.StatusCode != http.StatusOK || len(page) != 1 || page[0].ID != clips[0].ID {
		t.Errorf("page 1 of size 1: %d %s", resp.StatusCode, data)
	}
}

func download(t *testing.T, url, path string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRestartMidPipeline closes the server while a project is being
// processed and starts a new one on the same data directory: the project
// still ends COMPLETE.
func TestRestartMidPipeline(t *testing.T) {
	t.Parallel()
	video := sourceVideo(t)
	dir := t.TempDir()
	// A short grace: Close cuts the run instead of waiting for it to end.
	cfg := Config{DataDir: dir, ShutdownGrace: 50 * time.Millisecond, Listen: "127.0.0.1:0", APIKey: devKey, Limits: quota.Limits{RateLimit: 100000}}
	srv, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() }) // a no-op after the Close below
	c := newClient(t, srv, devKey)
	uploadID := c.uploadFile(video, 1<<20)
	p := c.mustCreate(map[string]any{"videoUrl": uploadID, "curationPref": map[string]any{"clipDurations": [][]float64{{5, 10}}}})

	closeMidway(t, srv, c, p.ID)

	st := openData(t, dir)
	stored, err := st.GetProject(t.Context(), p.ID)
	_ = st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if stored.Stage == apitypes.StageComplete {
		t.Fatalf("the project completed during Close; nothing was interrupted")
	}
	t.Logf("interrupted in stage %s", stored.Stage)

	srv2 := startServer(t, cfg)
	c2 := newClient(t, srv2, devKey)
	done := c2.waitFor(p.ID, pipelineTimeout, true, apitypes.StageComplete)
	if n := len(c2.clips(p.ID)); n == 0 {
		t.Errorf("resumed project completed with no clips (stallCount %v)", done.StallCount)
	}
}

// closeMidway closes srv, whose ShutdownGrace is short, once project id is
// at CURATE, REFINE or RENDER, so that its run is cut.
func closeMidway(t *testing.T, srv *Server, c *apiClient, id string) {
	t.Helper()
	midway := []apitypes.Stage{apitypes.StageCurate, apitypes.StageRefine, apitypes.StageRender}
	deadline := time.Now().Add(pipelineTimeout)
	for {
		cur := c.project(id)
		if slices.Contains(midway, cur.Stage) {
			break
		}
		if cur.Stage == apitypes.StageComplete || cur.Stage == apitypes.StageStalled || time.Now().After(deadline) {
			_ = srv.Close()
			t.Fatalf("project reached %s (%s) before it could be interrupted mid-way", cur.Stage, deref(cur.Error))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := srv.Close(); err != nil {
		t.Logf("Close while busy: %v", err) // the cut run is reported; it is expected here
	}
}

// TestDevKeyRestart starts twice on one data directory with the same
// CLIPPERD_API_KEY: the key keeps working, acts for org-dev, and is stored once.
func TestDevKeyRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Listen: "127.0.0.1:0", APIKey: devKey}
	var uploadID string
	for i := range 2 {
		srv, err := Start(t.Context(), cfg)
		if err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		c := newClient(t, srv, devKey)
		if i == 0 {
			uploadID = c.uploadLink().UploadID
		}
		resp, data := c.do(http.MethodGet, "/api/brand-templates?q=mine", nil, apitypes.HeaderOrgID, DevOrgID)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("start %d: dev key refused: %d %s", i+1, resp.StatusCode, data)
		}
		if keys := countDevKeys(t, dir); keys != 1 {
			t.Errorf("start %d: %d keys for %s, want 1", i+1, keys, DevOrgID)
		}
		if up, err := srv.store.GetUpload(t.Context(), uploadID); err != nil || up.OrgID != DevOrgID || up.UserID != DevUserID {
			t.Errorf("start %d: upload of the first run: %+v, %v", i+1, up, err)
		}
		if err := srv.Close(); err != nil {
			t.Fatalf("close %d: %v", i+1, err)
		}
	}
}

// countDevKeys counts the stored keys of the dev org by reading the database
// file directly (the store's modernc driver is registered as "sqlite"), so
// the store needs no method only a test would use.
func countDevKeys(t *testing.T, dir string) int {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "clipperd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM api_keys WHERE org_id = ?`, DevOrgID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
