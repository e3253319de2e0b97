package pipeline

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

func mediaSpan(a, b float64) media.Interval { return media.Interval{Start: a, End: b} }

// importJob creates a project for videoURL, claimed by run 0 as a run
// claims it, and the job IMPORT would get.
func (e *env) importJob(videoURL string, cp *apitypes.CurationPref) *job {
	id := e.create(apitypes.CreateProjectRequest{VideoURL: videoURL, CurationPref: cp})
	p, err := e.st.MutateProject(context.Background(), id, func(p *store.Project) error {
		p.Stage = apitypes.StageImport
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return &job{p: p, tmpName: id + ".run0"}
}

func serveFile(t *testing.T, path string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/talk.mp4" {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestImportFromLinkStreamsAndProbes(t *testing.T) {
	t.Parallel()
	src := testVideo(t)
	srv := serveFile(t, src)
	e := newEnv(t)
	e.cfg.AllowPrivateImports = true
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	j := e.importJob(srv.URL+"/talk.mp4?X-Amz-Signature=secret", &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(5), EndSec: f64(15)}})
	if err := r.importStage(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(src)
	got, err := os.ReadFile(filepath.Join(e.dir, "media", j.p.ID, sourceName))
	if err != nil || len(got) != len(want) {
		t.Fatalf("imported %d bytes (%v), want %d", len(got), err, len(want))
	}
	if j.probe.DurationSec < 39 || j.probe.DurationSec > 41 || !j.ranged || j.span != mediaSpan(5, 15) {
		t.Errorf("probe %+v span %+v ranged %v", j.probe, j.span, j.ranged)
	}
	p := e.project(j.p.ID)
	if p.SourceKey != "media/"+j.p.ID+"/"+sourceName || p.SourceDurationSec != j.probe.DurationSec || p.StorageSize != int64(len(want)) {
		t.Errorf("project source %q %.1f s storage %d", p.SourceKey, p.SourceDurationSec, p.StorageSize)
	}
	// A second run reuses the complete source instead of downloading again.
	srv.Close()
	if err := r.importStage(context.Background(), j); err != nil {
		t.Errorf("re-import with the source in place: %v", err)
	}

	// A range past the end names curationPref.range.
	j2 := e.importJob(e.upload(src), &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(30), EndSec: f64(60)}})
	err = r.importStage(context.Background(), j2)
	if err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "curationPref.range") {
		t.Errorf("range past the end: %v", err)
	}
}

func TestImportRefusesPrivateAddressesAndBadLinks(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big.mp4":
			_, _ = w.Write([]byte(strings.Repeat("x", 5000)))
		case "/flaky.mp4":
			http.Error(w, "busy", http.StatusBadGateway)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	e := newEnv(t)
	guarded, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	j := e.importJob(srv.URL+"/big.mp4", nil)
	err = guarded.importStage(context.Background(), j)
	if err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "private or loopback address 127.0.0.1") {
		t.Errorf("loopback import: %v, want a permanent refusal naming the address", err)
	}

	e.cfg.AllowPrivateImports = true
	open, _ := e.newRunner()
	open.maxDownload = 1000
	for _, tc := range []struct {
		path, want string
		permanent  bool
	}{
		{"/big.mp4", "larger than", true},
		{"/missing.mp4", "404", true},
		{"/flaky.mp4", "502", false},
	} {
		j := e.importJob(srv.URL+tc.path, nil)
		err := open.importStage(context.Background(), j)
		if err == nil || isPermanent(err) != tc.permanent || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (permanent %v), want %q permanent=%v", tc.path, err, isPermanent(err), tc.want, tc.permanent)
		}
		if _, err := os.Stat(filepath.Join(j.tmp, "download.part")); !os.IsNotExist(err) {
			t.Errorf("%s: partial download left behind", tc.path)
		}
	}
}

func TestImportUploadErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, _ := e.newRunner()
	j := e.importJob("up_doesnotexist", nil)
	if err := r.importStage(context.Background(), j); err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "not a known uploadId") {
		t.Errorf("unknown upload: %v", err)
	}
	path := filepath.Join(t.TempDir(), "half.bin")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.upload(path)
	u, _ := e.st.GetUpload(context.Background(), id)
	u.Complete, u.Total = false, 100
	if err := e.st.SaveUpload(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	j = e.importJob(id, nil)
	if err := r.importStage(context.Background(), j); err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("incomplete upload: %v", err)
	}
}

func TestPlatformLinkWithoutYtdlp(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no yt-dlp anywhere
	e := newEnv(t)
	r, _ := e.newRunner()
	j := e.importJob("https://www.youtube.com/watch?v=dQw4w9WgXcQ", nil)
	err := r.importStage(context.Background(), j)
	if err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "yt-dlp is not installed: install it to import from YouTube links") {
		t.Errorf("youtube without yt-dlp: %v", err)
	}
}

func TestRefineTextFromWhatIsKnown(t *testing.T) {
	t.Parallel()
	if got := hashtags([]string{"machine learning", "Go", "go", " "}, "Q&A"); got != "#MachineLearning #Go #QA" {
		t.Errorf("hashtags = %q", got)
	}
	if got := hashtags(nil, "Auto"); got != "" {
		t.Errorf("hashtags for Auto = %q, want none", got)
	}
	if clock(80) != "01:20" || clock(3725) != "1:02:05" {
		t.Errorf("clock: %s %s", clock(80), clock(3725))
	}
}
