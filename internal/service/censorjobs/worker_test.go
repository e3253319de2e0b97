package censorjobs

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/jobs/jobstest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/scratch"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// fixture is a store and a data directory's blob store, as a server opens
// them.
type fixture struct {
	dir   string
	st    *store.Store
	media *blob.Dir
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	media, err := blob.NewDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, st: st, media: media}
}

// newWorker opens a job system on f's store, as a (re)started server does,
// and registers a worker with it; the test's end stops it before the store
// closes.
func (f *fixture) newWorker(t *testing.T) *Worker {
	t.Helper()
	js, err := jobs.Open(t.Context(), jobs.Config{Store: f.st, FetchPollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { js.Stop(context.Background()) })
	w, err := New(Config{Store: f.st, Jobs: js, Media: f.media, Scratch: scratch.New(filepath.Join(f.dir, "tmp"))})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// start runs w's job system, with beforeRun.
func start(t *testing.T, w *Worker, beforeRun func(context.Context, string)) {
	t.Helper()
	w.beforeRun = beforeRun
	if err := w.jobs.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// finished waits until job id has an outcome and returns it.
func (f *fixture) finished(t *testing.T, id string) *store.CensorJob {
	t.Helper()
	// Only a guard against a hang: a job that spots words with pocketsphinx
	// and renders took over 84 s on a loaded CI machine (20 s failed it).
	for end := time.Now().Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		j, err := f.st.CensorJob(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == apitypes.CensorFailed || j.Status == apitypes.CensorConcluded {
			return j
		}
		if time.Now().After(end) {
			t.Fatalf("job %s still %s", id, j.Status)
		}
	}
}

// jobStates lists the states of the censor queue's jobs, oldest first.
func jobStates(t *testing.T, w *Worker) []string {
	t.Helper()
	return jobstest.States(t, w.jobs, jobs.QueueCensor)
}

// TestAdoptsJobsWithoutAJob: jobs an older release left QUEUED or
// PROCESSING (no job of their own) run once adopted; a job whose clip is
// gone FAILS with why.
func TestAdoptsJobsWithoutAJob(t *testing.T) {
	f := newFixture(t)
	queued := &store.CensorJob{OrgID: "org", ProjectID: "p1", ClipID: "c01"}
	processing := &store.CensorJob{OrgID: "org", ProjectID: "p1", ClipID: "c02", Beep: true}
	for _, j := range []*store.CensorJob{queued, processing} {
		if err := f.st.CreateCensorJob(t.Context(), j, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.st.StartCensorJob(t.Context(), processing.ID); err != nil {
		t.Fatal(err)
	}
	w := f.newWorker(t)
	for range 2 { // a second adoption adds nothing
		if err := w.Adopt(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	start(t, w, nil)
	for _, id := range []string{queued.ID, processing.ID} {
		if j := f.finished(t, id); j.Status != apitypes.CensorFailed || j.Error == "" {
			t.Errorf("job %s: %s %q, want FAILED: the clip no longer exists", id, j.Status, j.Error)
		}
	}
}

// TestRestartCensorsOnce: a job cut short by a stop stays PROCESSING and
// its job is handed back; the next start censors the clip from its
// original, once: one CONCLUDED row, one completed job, one original kept
// per file.
func TestRestartCensorsOnce(t *testing.T) {
	toolexectest.RequireTools(t, "ffmpeg")
	f := newFixture(t)
	clip := store.Clip{ID: "p1.c01", CurationID: "c01", RunID: "run_1", CreatedAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
		TimeRanges: [][2]int64{{0, 2000}}}
	if err := f.st.ReplaceClips(t.Context(), "p1", "org", []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	if err := f.st.ReplaceTranscript(t.Context(), "p1", []store.TranscriptWord{
		{Word: "well", StartMs: 100, EndMs: 400, Confidence: 1}, {Word: "damn", StartMs: 800, EndMs: 1200, Confidence: 1},
	}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "clip.mp4")
	out, err := exec.CommandContext(t.Context(), "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
		"-f", "lavfi", "-i", "color=c=black:s=64x64:d=2", "-shortest", "-c:v", "mpeg4", "-c:a", "aac", src).CombinedOutput()
	if err != nil {
		t.Fatalf("make a clip: %v: %s", err, out)
	}
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c01.mp4", "c01.preview.mp4"} {
		if err := blob.Write(t.Context(), f.media, blob.MediaKey("p1", name), bytes.NewReader(orig)); err != nil {
			t.Fatal(err)
		}
		// The render's sum, as the pipeline records it.
		sum := sha256.Sum256(orig)
		if err := f.st.RecordMediaSum(t.Context(), blob.MediaKey("p1", name), store.MediaSum{Size: int64(len(orig)), SHA256: hex.EncodeToString(sum[:])}); err != nil {
			t.Fatal(err)
		}
	}

	first := f.newWorker(t)
	job := &store.CensorJob{OrgID: "org", ProjectID: "p1", ClipID: "c01"}
	if err := f.st.CreateCensorJob(t.Context(), job, first.Enqueue(job)); err != nil {
		t.Fatal(err)
	}
	held := make(chan string, 1)
	start(t, first, func(ctx context.Context, id string) {
		held <- id
		<-ctx.Done() // until the stop
	})
	if id := <-held; id != job.ID {
		t.Fatalf("held %s, want %s", id, job.ID)
	}
	grace, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	first.jobs.Stop(grace)
	cancel()
	if j, err := f.st.CensorJob(t.Context(), job.ID); err != nil || j.Status != apitypes.CensorProcessing {
		t.Fatalf("job after the stop: %+v, %v; want PROCESSING", j, err)
	}
	if states := jobStates(t, first); !slices.Equal(states, []string{"available/0"}) {
		t.Errorf("jobs after the stop %v; want the cut job handed back, its attempt not counted", states)
	}

	next := f.newWorker(t)
	if err := next.Adopt(t.Context()); err != nil { // the job has one: nothing added
		t.Fatal(err)
	}
	start(t, next, nil)
	if j := f.finished(t, job.ID); j.Status != apitypes.CensorConcluded || j.Words != 1 {
		t.Fatalf("job after the restart: %+v; want CONCLUDED with one word", j)
	}
	storetest.Eventually(t, "one job after the restart, completed on attempt 1", func() bool {
		return slices.Equal(jobStates(t, next), []string{"completed/1"})
	})
	objects, err := f.media.List(t.Context(), blob.MediaPrefix("p1"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objects {
		keys = append(keys, o.Key)
	}
	version := renderVersion(&clip)
	want := []string{blob.MediaKey("p1", "c01.mp4"), blob.MediaKey("p1", OriginalName("c01.mp4", version)),
		blob.MediaKey("p1", "c01.preview.mp4"), blob.MediaKey("p1", OriginalName("c01.preview.mp4", version))}
	slices.Sort(keys)
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("objects %v; want each file censored once beside its one original %v", keys, want)
	}
	kept, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(blob.MediaKey("p1", OriginalName("c01.mp4", version)))))
	if err != nil || !bytes.Equal(kept, orig) {
		t.Errorf("original kept: %d bytes, %v; want the render as it was", len(kept), err)
	}
	served, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(blob.MediaKey("p1", "c01.mp4"))))
	if err != nil || bytes.Equal(served, orig) {
		t.Errorf("served file: %d bytes, %v; want the censored render", len(served), err)
	}
	// The censored files replaced the renders' sums: they verify.
	for _, name := range []string{"c01.mp4", "c01.preview.mp4"} {
		key := blob.MediaKey("p1", name)
		sum, err := f.st.MediaSumOf(t.Context(), key)
		if err == nil {
			err = blob.Verify(t.Context(), f.media, key, blob.Sum(sum))
		}
		if err != nil {
			t.Errorf("%s after censoring: %v; want its recorded sum to be the censored file's", key, err)
		}
	}
}

// TestRenderVersionAsBefore: a clip's render version hashes its creation
// time as the releases that kept clips as text did, so the originals they
// kept are found (the value is sha256("run_1|2030-01-01T00:00:00.000Z")).
func TestRenderVersionAsBefore(t *testing.T) {
	clip := store.Clip{RunID: "run_1", CreatedAt: time.Date(2030, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600))}
	if got := renderVersion(&clip); got != "fb3b30720a6a" {
		t.Errorf("renderVersion = %s, want fb3b30720a6a", got)
	}
}
