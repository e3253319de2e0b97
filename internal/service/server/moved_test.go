package server

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// TestMovedDataDirKeepsEverything moves a data directory while a project
// is in flight (copied elsewhere, the original renamed away) and serves it
// at another address: the finished project's clips are still served, at
// addresses of the new server (and its old links still verify), the
// upload still imports into a new project, the in-flight project resumes,
// the temporary files a stopped process left are swept, and the copy's
// janitor deletes only the copy's own files, never the original's.
func TestMovedDataDirKeepsEverything(t *testing.T) {
	t.Parallel()
	video := sourceVideo(t)
	var ahead atomic.Int64 // how far the servers' clock runs ahead, for the janitor
	now := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	original := filepath.Join(t.TempDir(), "data")
	cfg := Config{DataDir: original, ShutdownGrace: 50 * time.Millisecond, Listen: "127.0.0.1:0", APIKey: devKey,
		Limits: quota.Limits{RateLimit: 100000}, Now: now, JanitorPeriod: time.Hour}
	srv1, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv1.Close() }) // a no-op after the Close below
	c1 := newClient(t, srv1, devKey)
	upload := c1.uploadFile(video, 1<<20)
	create := func(c *apiClient) apitypes.Project {
		return c.mustCreate(map[string]any{"videoUrl": upload,
			"curationPref": map[string]any{"range": map[string]any{"startSec": 0, "endSec": 12}, "clipDurations": [][]float64{{4, 10}}}})
	}
	done := create(c1)
	c1.waitStage(done.ID, pipelineTimeout, apitypes.StageComplete)
	oldClip := c1.clips(done.ID)[0]
	if !strings.HasPrefix(oldClip.URIForExport, srv1.URL()+"/media/") {
		t.Fatalf("clip address %s is not under the first server's %s", oldClip.URIForExport, srv1.URL())
	}
	inFlight := create(c1)
	closeMidway(t, srv1, c1, inFlight.ID)

	// The move: a copy elsewhere, the original renamed away so that no
	// absolute path into it resolves, and a job's leftovers in the copy.
	moved := filepath.Join(t.TempDir(), "moved")
	copyTree(t, original, moved)
	away := original + ".away"
	if err := os.Rename(original, away); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(moved, "tmp", "prj_crashed", "audio.wav")
	if err := os.MkdirAll(filepath.Dir(leftover), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leftover, []byte("left by kill -9"), 0o600); err != nil {
		t.Fatal(err)
	}

	cfg.DataDir = moved
	srv2 := startServer(t, cfg) // a new port: another address
	if _, err := os.Stat(filepath.Dir(leftover)); !os.IsNotExist(err) {
		t.Errorf("the temporary files of a stopped process were not swept at start: %v", err)
	}
	c2 := newClient(t, srv2, devKey)
	clip := c2.clips(done.ID)[0]
	if !strings.HasPrefix(clip.URIForExport, srv2.URL()+"/media/") {
		t.Errorf("after the move the clip address is %s, want one under the new server's %s", clip.URIForExport, srv2.URL())
	}
	served := get(t, clip.URIForExport)
	onDisk, err := os.ReadFile(filepath.Join(moved, "media", done.ID, clip.CurationID+".mp4"))
	if err != nil || len(served) == 0 || !bytes.Equal(served, onDisk) {
		t.Fatalf("GET the moved clip: %d bytes, the copy holds %d (%v)", len(served), len(onDisk), err)
	}
	// A link handed out before the move, brought to the new address.
	old, _ := url.Parse(oldClip.URIForExport)
	if again := get(t, srv2.URL()+old.Path+"?"+old.RawQuery); !bytes.Equal(again, onDisk) {
		t.Errorf("an address handed out before the move serves %d bytes, want the clip's %d", len(again), len(onDisk))
	}

	resumed := c2.waitFor(inFlight.ID, pipelineTimeout, true, apitypes.StageComplete)
	if n := len(c2.clips(inFlight.ID)); n == 0 {
		t.Errorf("the in-flight project resumed with no clips (stallCount %v)", resumed.StallCount)
	}
	fresh := create(c2)
	if p := c2.waitFor(fresh.ID, pipelineTimeout, false, apitypes.StageComplete); len(c2.clips(p.ID)) == 0 {
		t.Errorf("a new project from the moved upload made no clips")
	}

	// The copy's janitor, past every expiry, deletes the copy's media and
	// uploads, and nothing of the original.
	before := listFiles(t, away)
	ahead.Store(int64(90 * 24 * time.Hour))
	sw, err := srv2.janitor.Pass(t.Context())
	if err != nil || sw.Projects != 3 {
		t.Errorf("the copy's janitor pass = %+v, %v; want the 3 projects' media deleted", sw, err)
	}
	if _, err := os.Stat(filepath.Join(moved, "media", done.ID)); !os.IsNotExist(err) {
		t.Errorf("the copy's expired media stay: %v", err)
	}
	if _, err := os.Stat(filepath.Join(moved, "uploads", upload+".bin")); !os.IsNotExist(err) {
		t.Errorf("the copy's expired upload stays: %v", err)
	}
	if after := listFiles(t, away); !slices.Equal(after, before) {
		t.Errorf("the copy's janitor changed the original:\nbefore %v\nafter  %v", before, after)
	}
	if !slices.Contains(before, "uploads/"+upload+".bin") || !slices.Contains(before, "media/"+done.ID+"/"+clip.CurationID+".mp4") {
		t.Errorf("the original does not hold the upload and the clip it made: %v", before)
	}
}

// get reads url, which must answer 200.
func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", url, resp.StatusCode, err, body[:min(len(body), 300)])
	}
	return body
}

// copyTree copies the regular files under from to to, as a backup does.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// listFiles is the slash-separated paths of the files under dir
// but the database's, sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "clipperd.db") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
