package censorjobs

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// TestCensorJobHearsTheWord: festival says "Oh shit, I forgot to preheat
// the oven." (the sentence); pocketsphinx's transcript hears "but
// she did i forgot ...", so the transcript alone censors nothing. The
// censor job spots the word in the audio, checks it by a decode among the
// listed and the transcript's words, and beeps exactly it: one beep,
// within 0.15 s of the word's edges as festival timed them.
func TestCensorJobHearsTheWord(t *testing.T) {
	toolexectest.RequireTools(t, "festival", "ffmpeg", transcribe.PocketsphinxTool)
	f := newFixture(t)
	dir := t.TempDir()
	wav, spoken := speechtest.Timed(t, dir, "Oh shit, I forgot to preheat the oven.")
	var word speechtest.TimedWord
	for _, w := range spoken {
		if strings.EqualFold(w.Text, "shit") {
			word = w
		}
	}
	if word.End == 0 {
		t.Fatalf("festival's words %v lack the word", spoken)
	}
	clipFile := filepath.Join(dir, "clip.mp4")
	if out, err := exec.CommandContext(t.Context(), "ffmpeg", "-nostdin", "-v", "error", "-i", wav, "-f", "lavfi", "-i", "color=c=black:s=64x64:r=25",
		"-shortest", "-c:v", "mpeg4", "-c:a", "aac", "-b:a", "160k", clipFile).CombinedOutput(); err != nil {
		t.Fatalf("make the clip: %v: %s", err, out)
	}

	// The transcript the pipeline stores: the recogniser's words.
	heard, err := (&transcribe.Pocketsphinx{}).Transcribe(t.Context(), wav, "en")
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]store.TranscriptWord, len(heard))
	var text []string
	for i, w := range heard {
		rows[i] = store.TranscriptWord{Word: w.Text, StartMs: int64(w.Start * 1000), EndMs: int64(w.End * 1000), Confidence: w.Confidence}
		text = append(text, w.Text)
	}
	clipMs := int64(math.Ceil(spoken[len(spoken)-1].End*1000)) + 200
	if spans := Spans(rows, 0, clipMs); len(spans) != 0 {
		t.Fatalf("the transcript %q has the word (%v): this test is about the words it misses", text, spans)
	}
	t.Logf("transcript: %q; festival: %q at %.2f-%.2f s", strings.Join(text, " "), word.Text, word.Start, word.End)
	if err := f.st.ReplaceTranscript(t.Context(), "p1", rows); err != nil {
		t.Fatal(err)
	}
	clip := store.Clip{ID: "p1.c01", CurationID: "c01", RunID: "run_1", CreatedAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
		TimeRanges: [][2]int64{{0, clipMs}}}
	if err := f.st.ReplaceClips(t.Context(), "p1", "org", []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(clipFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c01.mp4", "c01.preview.mp4"} {
		if err := blob.Write(t.Context(), f.media, blob.MediaKey("p1", name), bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}

	w := f.newWorker(t)
	w.spotter = &transcribe.Pocketsphinx{}
	job := &store.CensorJob{OrgID: "org", ProjectID: "p1", ClipID: "c01", Beep: true}
	if err := f.st.CreateCensorJob(t.Context(), job, w.Enqueue(job)); err != nil {
		t.Fatal(err)
	}
	start(t, w, nil)
	if j := f.finished(t, job.ID); j.Status != apitypes.CensorConcluded || j.Words != 1 {
		t.Fatalf("job: %s, %d words, %q; want CONCLUDED with one word", j.Status, j.Words, j.Error)
	}
	for _, name := range []string{"c01.mp4", "c01.preview.mp4"} {
		beeps := beepRuns(t, filepath.Join(f.dir, filepath.FromSlash(blob.MediaKey("p1", name))))
		if len(beeps) != 1 {
			t.Fatalf("%s: beeps at %v; want one, on %q at %.2f-%.2f s", name, beeps, word.Text, word.Start, word.End)
		}
		b := beeps[0]
		t.Logf("%s: beep %.2f-%.2f s, the word %.2f-%.2f s", name, b.Start, b.End, word.Start, word.End)
		if math.Abs(b.Start-word.Start) > 0.15 || math.Abs(b.End-word.End) > 0.15 {
			t.Errorf("%s: beep %.2f-%.2f s; want within 0.15 s of the word's %.2f-%.2f s", name, b.Start, b.End, word.Start, word.End)
		}
	}
}

// beepRuns are the stretches of a file's audio that are the censor's beep:
// 10 ms windows whose power is mostly at media.BeepHz, joined.
func beepRuns(t *testing.T, path string) []media.CensorSpan {
	t.Helper()
	raw, err := exec.CommandContext(t.Context(), "ffmpeg", "-nostdin", "-loglevel", "error", "-i", path, "-ac", "1", "-ar", "16000", "-f", "s16le", "-").Output()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	const rate, window = 16000, 160
	var runs []media.CensorSpan
	open := false
	for at := 0; at+2*window <= len(raw); at += 2 * window {
		pcm := make([]float64, window)
		for i := range pcm {
			pcm[i] = float64(int16(uint16(raw[at+2*i]) | uint16(raw[at+2*i+1])<<8))
		}
		from, to := float64(at/2)/rate, float64(at/2+window)/rate
		if toneShare(pcm, media.BeepHz, rate) > 0.8 {
			if open {
				runs[len(runs)-1].End = to
			} else {
				runs = append(runs, media.CensorSpan{Start: from, End: to})
			}
			open = true
		} else {
			open = false
		}
	}
	return runs
}

// toneShare is the share of s's power at freq (Goertzel).
func toneShare(s []float64, freq float64, rate int) float64 {
	c := 2 * math.Cos(2*math.Pi*freq/float64(rate))
	var s1, s2, total float64
	for _, v := range s {
		s1, s2 = v+c*s1-s2, s1
		total += v * v
	}
	if total < 1e3 {
		return 0
	}
	return 2 * (s1*s1 + s2*s2 - c*s1*s2) / (float64(len(s)) * total)
}
