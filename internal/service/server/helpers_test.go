package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/datadirtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo/videotest"
)

const devKey = "ck_test_dev_key"

// startServer starts a real server on a free port in a temp dir. Unless the
// test sets them, it uses the dev key and a rate limit high enough for polling.
func startServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = devKey
	}
	if cfg.RateLimit == 0 {
		cfg.RateLimit = 100000
	}
	if cfg.EncodePreset == "" {
		// The fastest preset: a third of the default's CPU for the same
		// pictures, larger files.
		cfg.EncodePreset = "ultrafast"
	}
	if store.Locate(cfg.Database).Shared() && cfg.MasterKey == "" && cfg.MasterKeyFile == "" {
		_, cfg.MasterKey = masterkey.Generate() // processes sharing a database are given one
	}
	if cfg.Logger == nil && testing.Verbose() {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// apiClient speaks to a server with one key.
type apiClient struct {
	t    *testing.T
	base string
	key  string
}

func newClient(t *testing.T, srv *Server, key string) *apiClient {
	return &apiClient{t: t, base: srv.URL(), key: key}
}

// do sends a request; body is JSON-encoded unless it is a string (sent as is)
// or nil. hdr are header name/value pairs.
func (c *apiClient) do(method, path string, body any, hdr ...string) (*http.Response, []byte) {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	target := path
	if !strings.HasPrefix(path, "http") {
		target = c.base + path
	}
	req, err := http.NewRequestWithContext(c.t.Context(), method, target, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp, data
}

// create posts a project and returns the response.
func (c *apiClient) create(body any) (*http.Response, []byte) {
	c.t.Helper()
	return c.do(http.MethodPost, "/api/clip-projects", body)
}

// mustCreate posts a project and fails unless it is created.
func (c *apiClient) mustCreate(body any) apitypes.Project {
	c.t.Helper()
	resp, data := c.create(body)
	if resp.StatusCode != http.StatusCreated {
		c.t.Fatalf("create: status %d, body %s", resp.StatusCode, data)
	}
	return decode[apitypes.Project](c.t, data)
}

func (c *apiClient) project(id string) apitypes.Project {
	c.t.Helper()
	resp, data := c.do(http.MethodGet, "/api/clip-projects/"+id, nil)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("get project %s: status %d, body %s", id, resp.StatusCode, data)
	}
	return decode[apitypes.Project](c.t, data)
}

// waitStage polls the project until its stage is one of want. A STALLED
// project that is not wanted ends the test with its error.
func (c *apiClient) waitStage(id string, timeout time.Duration, want ...apitypes.Stage) apitypes.Project {
	c.t.Helper()
	return c.waitFor(id, timeout, false, want...)
}

// waitFor is waitStage; with stallOK a STALLED project is waited on too (the
// service retries it), as after an interrupted run.
func (c *apiClient) waitFor(id string, timeout time.Duration, stallOK bool, want ...apitypes.Stage) apitypes.Project {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p := c.project(id)
		if slices.Contains(want, p.Stage) {
			return p
		}
		if p.Stage == apitypes.StageStalled && !stallOK {
			c.t.Fatalf("project %s stalled: %s", id, deref(p.Error))
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("project %s still in stage %s after %s, want %v", id, p.Stage, timeout, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *apiClient) clips(projectID string) []apitypes.ExportableClip {
	c.t.Helper()
	resp, data := c.do(http.MethodGet, "/api/exportable-clips?q=findByProjectId&projectId="+projectID, nil)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("exportable-clips: status %d, body %s", resp.StatusCode, data)
	}
	return decode[[]apitypes.ExportableClip](c.t, data)
}

// finishedProjects uploads video once and makes one project of each
// [startSec, endSec] range of it (clips of 4 to 10 s), waits until all are
// COMPLETE and returns them with the first clip of each.
func (c *apiClient) finishedProjects(video []byte, ranges ...[2]int) ([]apitypes.Project, []apitypes.ExportableClip) {
	c.t.Helper()
	upload := c.uploadFile(video, 1<<20)
	var projects []apitypes.Project
	for _, r := range ranges {
		projects = append(projects, c.mustCreate(map[string]any{
			"videoUrl":     upload,
			"curationPref": map[string]any{"range": map[string]any{"startSec": r[0], "endSec": r[1]}, "clipDurations": [][]float64{{4, 10}}},
		}))
	}
	var clips []apitypes.ExportableClip
	for _, p := range projects {
		c.waitStage(p.ID, pipelineTimeout, apitypes.StageComplete)
		got := c.clips(p.ID)
		if len(got) == 0 {
			c.t.Fatalf("project %s made no clips", p.ID)
		}
		clips = append(clips, got[0])
	}
	return projects, clips
}

// uploadFile runs the upload flow with chunks of chunk bytes and returns the uploadId.
func (c *apiClient) uploadFile(data []byte, chunk int) string {
	c.t.Helper()
	link := c.uploadLink()
	session := c.startSession(link.URL)
	total := len(data)
	for off := 0; off < total; off += chunk {
		end := min(off+chunk, total) - 1
		resp, body := c.do(http.MethodPut, session, data[off:end+1],
			"Content-Range", fmt.Sprintf("bytes %d-%d/%d", off, end, total), "Content-Type", "application/octet-stream")
		want := http.StatusPermanentRedirect
		if end == total-1 {
			want = http.StatusOK
		}
		if resp.StatusCode != want {
			c.t.Fatalf("PUT %d-%d: status %d, want %d; body %s", off, end, resp.StatusCode, want, body)
		}
	}
	return link.UploadID
}

func (c *apiClient) uploadLink() apitypes.UploadLink {
	c.t.Helper()
	resp, data := c.do(http.MethodPost, "/api/upload-links", apitypes.UploadLinkRequest{Video: apitypes.UploadLinkVideo{Usecase: apitypes.UsecaseLocalUpload}})
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("upload-links: status %d, body %s", resp.StatusCode, data)
	}
	return decode[apitypes.Envelope[apitypes.UploadLink]](c.t, data).Data
}

func (c *apiClient) startSession(uploadURL string) string {
	c.t.Helper()
	resp, data := c.do(http.MethodPost, uploadURL, nil, apitypes.HeaderResumable, "start")
	if resp.StatusCode != http.StatusCreated {
		c.t.Fatalf("start upload: status %d, body %s", resp.StatusCode, data)
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		c.t.Fatal("start upload: no location header")
	}
	return loc
}

func decode[T any](t *testing.T, data []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decoding %T from %s: %v", v, data, err)
	}
	return v
}

// wantError checks an error answer: status, errorName and a message containing want.
func wantError(t *testing.T, resp *http.Response, data []byte, status int, name, want string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, data)
	}
	eb := decode[apitypes.ErrorBody](t, data)
	if eb.ErrorName != name {
		t.Errorf("errorName %q, want %q (body %s)", eb.ErrorName, name, data)
	}
	if eb.ErrorMessage == nil || !strings.Contains(*eb.ErrorMessage, want) {
		t.Errorf("errorMessage %q does not contain %q", deref(eb.ErrorMessage), want)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestMain points the user's configuration directory, where a server that
// is given no master key keeps its key file, at a temporary one: no test
// writes the real ~/.config.
func TestMain(m *testing.M) {
	cfg, err := os.MkdirTemp("", "clipperd-config-")
	if err != nil {
		panic(err)
	}
	_ = os.Setenv("XDG_CONFIG_HOME", cfg)
	videotest.Main(m, func() { _ = os.RemoveAll(cfg) })
}

// sourceVideo returns the bytes of a generated 36 s 320x240 talk, made once per test run.
func sourceVideo(t *testing.T) []byte {
	t.Helper()
	return videotest.SharedBytes(t, testvideo.Options{Duration: 36 * time.Second, Width: 320, Height: 240})
}

// probe returns width and height of the first video stream of path (ffprobe).
func probe(t *testing.T, path string) (int, int) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "ffprobe", "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=width,height", "-of", "csv=p=0:s=x", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var w, h int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "%dx%d", &w, &h); err != nil {
		t.Fatalf("ffprobe %s: parsing %q: %v", path, out, err)
	}
	return w, h
}

// hangingSource serves a video download that never finishes, so a project
// importing it stays in flight for the whole test. Call it after
// startServer: cleanups run last-first, so the downloads are released before
// the server's Close waits for its workers.
func hangingSource(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		w.Header().Set("Content-Length", "100000000")
		_, _ = w.Write(make([]byte, 1024))
		_ = http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	return hang.URL
}

// openData opens the store of a data directory with the master key its
// server found when given none (the default key file of the tests'
// configuration directory, or an older installation's key file in dir).
func openData(t *testing.T, dir string) *store.Store { return datadirtest.Open(t, dir) }
