package pipeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// renderCounts records, per runner, which render pieces a process worked
// (the "render i" hook point, called once per claim).
type renderCounts struct {
	mu     sync.Mutex
	counts map[string]map[int]int // by process name, by clip index
}

func (c *renderCounts) hook(name string, then func(ctx context.Context, i int)) func(ctx context.Context, point string) {
	return func(ctx context.Context, point string) {
		var i int
		if _, err := fmt.Sscanf(point, "render %d", &i); err != nil {
			return
		}
		c.mu.Lock()
		if c.counts == nil {
			c.counts = map[string]map[int]int{}
		}
		if c.counts[name] == nil {
			c.counts[name] = map[int]int{}
		}
		c.counts[name][i]++
		c.mu.Unlock()
		if then != nil {
			then(ctx, i)
		}
	}
}

// of is how many renders of clip i process name did.
func (c *renderCounts) of(name string, i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[name][i]
}

// worked is how many render claims process name worked.
func (c *renderCounts) worked(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.counts[name] {
		n += k
	}
	return n
}

// Issue 30: a run's clips are rendered by any worker with a free slot.
// Process A runs the project (one worker: its run); process B, started
// once A runs it, has a worker free and takes render pieces through their
// jobs. A holds its first render until B has rendered one, so the spread
// does not depend on the machine's speed. Every clip is rendered once, and
// the project completes with all its clips.
func TestRenderPiecesSpreadAcrossProcesses(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	src := toneSource(t, 6*60) // four clips: curation makes one per 90 s
	onEachEngineWith(t, func(t *testing.T, e *env) {
		var counts renderCounts
		byB := make(chan struct{})
		var once sync.Once
		rA, jsA := e.processWith(1)
		rA.hook = counts.hook("A", func(ctx context.Context, i int) {
			if i == 0 {
				select {
				case <-byB:
				case <-ctx.Done():
				case <-time.After(finishWait):
					t.Error("process B never rendered a clip")
				}
			}
		})
		e.start(rA, jsA)
		id := e.create(apitypes.CreateProjectRequest{
			VideoURL:     e.upload(src),
			CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{5, 9}}},
			RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
		})
		e.waitFor(id, func(p *store.Project) bool { return p.Stage != apitypes.StageQueued })
		rB, jsB := e.processWith(2)
		rB.hook = counts.hook("B", func(context.Context, int) { once.Do(func() { close(byB) }) })
		e.start(rB, jsB)

		p := e.waitDone(id)
		if p.Stage != apitypes.StageComplete {
			t.Fatalf("project %s (%v), want COMPLETE", p.Stage, deref(p.Error))
		}
		clips, err := e.st.ListClips(t.Context(), id, 0, 100)
		if err != nil || len(clips) < 2 {
			t.Fatalf("clips %d (%v), want several", len(clips), err)
		}
		for i := range clips {
			if n := counts.of("A", i) + counts.of("B", i); n != 1 {
				t.Errorf("clip %d rendered %d times (A %d, B %d), want once", i, n, counts.of("A", i), counts.of("B", i))
			}
			for _, name := range []string{clips[i].CurationID + ".mp4", clips[i].CurationID + ".preview.mp4", clips[i].CurationID + ".srt"} {
				if _, err := os.Stat(filepath.Join(e.dir, "media", id, name)); err != nil {
					t.Errorf("clip %d: %v", i, err)
				}
			}
		}
		if counts.worked("B") == 0 || counts.worked("A") == 0 {
			t.Errorf("renders by A %d, by B %d: want both", counts.worked("A"), counts.worked("B"))
		}
		t.Logf("%d clips: A rendered %d, B %d", len(clips), counts.worked("A"), counts.worked("B"))
		// Deleted just after the change to COMPLETE.
		storetest.Eventually(t, "the pieces of the COMPLETE project deleted", func() bool {
			left, err := e.st.ProjectPieces(t.Context(), id, "")
			return err == nil && len(left) == 0
		})
	})
}

// toneSource is a source of seconds made in a moment: a tiny grey picture
// and a tone that pauses for 0.6 s every 7 s.
func toneSource(t *testing.T, seconds int) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "tone.mp4")
	out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", fmt.Sprintf("color=c=gray:s=64x36:r=5:d=%d", seconds),
		"-f", "lavfi", "-i", fmt.Sprintf("aevalsrc='if(lt(mod(t,7),6.4),0.3*sin(2*PI*440*t),0)':s=16000:d=%d", seconds),
		"-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", src).CombinedOutput()
	if err != nil {
		t.Fatalf("make the source: %v\n%s", err, out)
	}
	return src
}

// Issue 30: a worker that dies holding a piece (kill -9: no heartbeat, no
// outcome) loses it when its lease ends, and the run redoes that piece
// only. The dead claim is made by the test, with a lease that has ended;
// its late result is refused.
func TestDeadPieceClaimIsRedoneAlone(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	e := newEnv(t)
	src := toneSource(t, 4*60) // three clips

	var counts renderCounts
	var dead store.Piece
	r, js := e.processWith(1)
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{5, 9}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
	})
	r.hook = counts.hook("A", func(ctx context.Context, i int) {
		if i != 0 || dead.Attempt != 0 {
			return
		}
		// While the run renders clip 0, a worker "dies" holding clip 1:
		// its lease has ended already.
		p, err := e.st.GetProject(ctx, id)
		if err != nil {
			t.Error(err)
			return
		}
		now := e.st.Now()
		claimed, ok, err := e.st.ClaimPiece(ctx, store.PieceKey{ProjectID: id, Kind: PieceRender, Index: 1}, p.RunToken, now, now.Add(-time.Second))
		if err != nil || !ok {
			t.Errorf("the test's claim of clip 1: %v, %v", ok, err)
			return
		}
		dead = claimed
	})
	e.start(r, js)
	p := e.waitDone(id)
	if p.Stage != apitypes.StageComplete || p.StallCount != nil {
		t.Fatalf("project %s (%v), stallCount %v: want COMPLETE without a stall", p.Stage, deref(p.Error), deref(p.StallCount))
	}
	if dead.Attempt == 0 {
		t.Fatal("the test never claimed clip 1")
	}
	clips, err := e.st.ListClips(t.Context(), id, 0, 100)
	if err != nil || len(clips) < 2 {
		t.Fatalf("clips %d (%v), want at least 2", len(clips), err)
	}
	for i := range clips {
		if n := counts.of("A", i); n != 1 {
			t.Errorf("clip %d rendered %d times, want once (only the dead claim's piece is redone, by one claim)", i, n)
		}
	}
	if err := e.st.FinishPiece(t.Context(), dead.PieceKey, dead.Attempt, []byte(`{}`)); err == nil {
		t.Error("the dead claim's late result was taken")
	}
}

// chunkWords is a recogniser that hears one word per 10 s of what it is
// given ("w0", "w10", ...), at that second, and records the length of
// each audio it was given.
type chunkWords struct {
	mu      sync.Mutex
	lengths []float64
}

func (c *chunkWords) Describe() string { return "chunk words (test)" }

func (c *chunkWords) Transcribe(_ context.Context, wav, _ string) ([]transcribe.Word, error) {
	fi, err := os.Stat(wav)
	if err != nil {
		return nil, err
	}
	length := float64(fi.Size()-44) / (16000 * 2) // 16 kHz mono 16-bit after the header
	c.mu.Lock()
	c.lengths = append(c.lengths, length)
	c.mu.Unlock()
	var words []transcribe.Word
	for at := 0.0; at+1 < length; at += 10 {
		words = append(words, transcribe.Word{Text: fmt.Sprintf("w%.0f", at), Start: at, End: at + 0.5, Confidence: 1})
	}
	return words, nil
}

// Issue 30: a long source's transcription is cut at pauses into pieces of
// transcribePieceMin to transcribePieceMax seconds, recognised apart and
// joined in order, in source seconds.
func TestLongTranscriptionInPieces(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	e := newEnv(t)
	const length = 9 * 60
	src := toneSource(t, length)
	asr := &chunkWords{}
	e.cfg.Transcriber = asr
	r, js := e.processWith(1)
	e.start(r, js)
	id := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{5, 9}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
	})
	if p := e.waitDone(id); p.Stage != apitypes.StageComplete {
		t.Fatalf("project %s (%v), want COMPLETE", p.Stage, deref(p.Error))
	}
	asr.mu.Lock()
	lengths := slices.Clone(asr.lengths)
	asr.mu.Unlock()
	if len(lengths) < 3 {
		t.Fatalf("the recogniser was given %d audios (%v s), want the %d s cut in pieces", len(lengths), lengths, length)
	}
	total := 0.0
	for _, l := range lengths {
		total += l
		if l < transcribePieceMin-1 || l > transcribePieceMax+1 {
			t.Errorf("a piece of %.1f s, want %g to %g s", l, transcribePieceMin, transcribePieceMax)
		}
	}
	if total < length-1 || total > length+1 {
		t.Errorf("pieces of %.1f s in all, want the source's %d s", total, length)
	}
	words, err := e.st.Transcript(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(words); i++ {
		if words[i].StartMs <= words[i-1].StartMs {
			t.Fatalf("word %d at %d ms after word %d at %d ms: want the pieces joined in order", i, words[i].StartMs, i-1, words[i-1].StartMs)
		}
	}
	if len(words) == 0 || words[len(words)-1].StartMs < (length-240)*1000 {
		t.Errorf("%d words, the last at %v: want words to the end of the source, in source time", len(words), words)
	}
}

// Issue 30: pieces count against their organization's share of a process's
// workers, like runs, so one organization's long project does not take the
// slot kept for the others. A process of 3 workers (share 2): one
// organization's run and its render pieces hold their 2 slots (every
// render waits until the other organization's project has started); the
// other organization's project starts in the third.
func TestPiecesLeaveAnotherOrganizationsSlot(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	e := newEnv(t)
	src := toneSource(t, 6*60) // four clips
	r, js := e.processWith(3)
	started := make(chan struct{})
	var inFlight, most atomic.Int32
	r.hook = func(ctx context.Context, point string) {
		if !strings.HasPrefix(point, "render ") {
			return
		}
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-started:
		case <-ctx.Done():
		case <-time.After(finishWait):
			t.Error("the other organization's project never started while the renders waited")
		}
	}
	e.start(r, js)
	long := e.create(apitypes.CreateProjectRequest{
		VideoURL:     e.upload(src),
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{5, 9}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
	})
	for deadline := time.Now().Add(finishWait); inFlight.Load() < 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the long project never rendered: %s", e.project(long).Stage)
		}
	}
	other := e.createFor("org-other", apitypes.CreateProjectRequest{
		VideoURL:     e.uploadFor("org-other", src),
		CurationPref: &apitypes.CurationPref{Range: &apitypes.Range{StartSec: f64(0), EndSec: f64(30)}, ClipDurations: [][2]float64{{5, 9}}},
	})
	e.waitFor(other, func(p *store.Project) bool { return p.Stage != apitypes.StageQueued })
	held := most.Load()
	close(started)
	for _, id := range []string{long, other} {
		if p := e.waitDone(id); p.Stage != apitypes.StageComplete {
			t.Fatalf("project %s: %s (%v), want COMPLETE", id, p.Stage, deref(p.Error))
		}
	}
	if held > 2 {
		t.Errorf("the long project held %d renders at once, over its organization's share of 2", held)
	}
	t.Logf("the other organization's project started while the long one held %d render(s)", held)
}
