package server

import (
	"encoding/binary"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/censorjobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// A mild list word that festival says and pocketsphinx hears.
var profaneSpeech = []string{
	"We are going to the market to buy some fresh bread.",
	// The recogniser takes a sentence-initial "Damn," for "than", and the
	// checking decode then weighs "than" against "damn" and keeps "than"; after
	// "Oh" the word is spotted and kept (the transcript reads "and and").
	"Oh damn, the market is closed today.",
	"Please call me when you arrive at the station.",
}

const censorRate = 16000

// TestCensorJob censors a recognised profanity of a real project: with a
// beep the word's span carries a 1 kHz tone, with silence it is quiet, and
// the rest of the audio is the original's within AAC's noise. The original
// render is kept, and the clip's address serves the censored one. It runs
// with the media in the data directory and in a bucket (a real MinIO).
func TestCensorJob(t *testing.T) {
	toolexectest.RequireTools(t, append(speechtest.Tools, transcribe.PocketsphinxTool)...)
	video, _ := speechtest.Video(t, t.TempDir(), profaneSpeech, 1.0)
	data, err := os.ReadFile(video)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Directory", func(t *testing.T) { censorJob(t, data, "") })
	t.Run("Bucket", func(t *testing.T) {
		minioSrv := miniotest.Start(t)
		minioSrv.Env(t)
		censorJob(t, data, minioSrv.URL(minioSrv.NewBucket(t), "clipperd"))
	})
}

func censorJob(t *testing.T, data []byte, mediaSpec string) {
	srv := startServer(t, Config{ASR: transcribe.KindPocketsphinx, Media: mediaSpec})
	c := newClient(t, srv, devKey)
	p := c.mustCreate(map[string]any{"videoUrl": c.uploadFile(data, 1<<20), "curationPref": map[string]any{"skipCurate": true}})
	c.waitStage(p.ID, pipelineTimeout, apitypes.StageComplete)
	clip := c.clips(p.ID)[0]
	words, err := srv.store.Transcript(t.Context(), p.ID)
	if err != nil {
		t.Fatal(err)
	}

	var spans []media.CensorSpan
	for i, beep := range []bool{true, false} {
		c.runCensorJob(p.ID, clip.CurationID, beep)
		for _, f := range []struct{ name, uri string }{{".mp4", clip.URIForExport}, {".preview.mp4", clip.URIForPreview}} {
			origs := originals(t, srv, p.ID, clip.CurationID+f.name)
			if len(origs) != 1 {
				t.Fatalf("originals of %s: %v, want one", f.name, origs)
			}
			if i == 0 && f.name == ".mp4" {
				// What the job censors: the transcript's listed words and
				// those its checking decode hears (the transcript may have
				// taken "damn" for "than"; the decode weighs the sound alone).
				if spans = censoredSpans(t, words, clip, origs[0]); len(spans) == 0 {
					t.Fatalf("no profanity heard in %q", clip.Text)
				}
			}
			resp, body := newClient(t, srv, "").do(http.MethodGet, f.uri, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d", f.uri, resp.StatusCode)
			}
			orig := strings.Replace(f.uri, "/"+clip.CurationID+f.name+"?", "/"+filepath.Base(origs[0])+"?", 1) // signed like the clip
			if resp, _ := newClient(t, srv, "").do(http.MethodGet, orig, nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("the original %s is served: %d", filepath.Base(origs[0]), resp.StatusCode)
			}
			served := filepath.Join(t.TempDir(), "served.mp4")
			if err := os.WriteFile(served, body, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s:", f.name)
			checkCensored(t, beep, pcm16(t, origs[0]), pcm16(t, served), spans)
		}
	}
}

// censoredSpans are the spans a censor job of clip censors in the clip's
// export (a local copy of its original): the listed words of the
// transcript, and those spotted in the export's audio, as the job hears
// them (spotted, then checked: censorjobs.Hear).
func censoredSpans(t *testing.T, words []store.TranscriptWord, clip apitypes.ExportableClip, export string) []media.CensorSpan {
	t.Helper()
	spans := censorjobs.Spans(words, clip.TimeRanges[0][0], clip.TimeRanges[0][1])
	wav := filepath.Join(t.TempDir(), "export.wav")
	if err := transcribe.ExtractWAV(t.Context(), export, 0, 0, wav); err != nil {
		t.Fatal(err)
	}
	heard, err := censorjobs.Hear(t.Context(), &transcribe.Pocketsphinx{}, wav,
		censorjobs.Vocabulary(words, clip.TimeRanges[0][0], clip.TimeRanges[0][1]))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range heard.Kept {
		spans = append(spans, censorjobs.Pad(h.Start, h.End))
	}
	spans = censorjobs.Merge(spans)
	t.Logf("censoring %v in %q", spans, clip.Text)
	return spans
}

// originals are local copies of the originals a censor job kept of file
// of project, read from the server's media wherever they are.
func originals(t *testing.T, srv *Server, project, file string) []string {
	t.Helper()
	objects, err := srv.media.List(t.Context(), blob.MediaPrefix(project))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objects {
		name := strings.TrimPrefix(o.Key, blob.MediaPrefix(project))
		if rest, ok := strings.CutPrefix(name, file+"."); !ok || !strings.HasSuffix(rest, ".orig") || strings.Contains(strings.TrimSuffix(rest, ".orig"), ".") {
			continue
		}
		local, err := blob.LocalFile(t.Context(), srv.media, o.Key, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		// The name stays the object's: the test signs an address of it.
		named := filepath.Join(t.TempDir(), name)
		if err := os.Link(local, named); err != nil {
			t.Fatal(err)
		}
		out = append(out, named)
	}
	return out
}

// runCensorJob creates a censor job and waits for it to conclude.
func (c *apiClient) runCensorJob(projectID, clipID string, beep bool) {
	c.t.Helper()
	resp, body := c.do(http.MethodPost, "/api/censor-jobs", apitypes.CensorJobRequest{
		ProjectID: projectID, ClipID: clipID, Options: apitypes.CensorOptions{BeepSound: beep},
	})
	if resp.StatusCode != http.StatusCreated {
		c.t.Fatalf("create censor job: %d %s", resp.StatusCode, body)
	}
	job := decode[apitypes.CensorJob](c.t, body)
	// pipelineTimeout only guards against a hang: a minute failed it on a
	// loaded machine.
	for end := time.Now().Add(pipelineTimeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		_, body := c.do(http.MethodGet, "/api/censor-jobs/"+job.JobID, nil)
		st := decode[apitypes.CensorJobStatus](c.t, body)
		switch st.Status {
		case apitypes.CensorConcluded:
			return
		case apitypes.CensorFailed:
			c.t.Fatalf("censor job failed: %s", deref(st.Error))
		}
	}
	c.t.Fatalf("censor job did not conclude in %s", pipelineTimeout)
}

// checkCensored compares the censored audio with the original: inside each
// span a beep or silence, outside the original within encoder noise.
func checkCensored(t *testing.T, beep bool, orig, got []int16, spans []media.CensorSpan) {
	t.Helper()
	if d := len(got) - len(orig); d < -censorRate/50 || d > censorRate/50 {
		t.Fatalf("%d samples, original %d", len(got), len(orig))
	}
	n := min(len(got), len(orig))
	// AAC spreads a sharp edge over a frame or two: 50 ms either side of
	// each span belongs to neither part.
	const margin = censorRate / 20
	inSpan := make([]bool, n)
	nearSpan := make([]bool, n)
	for _, s := range spans {
		a, b := int(s.Start*censorRate), min(n, int(s.End*censorRate))
		for i := max(0, a-margin); i < min(n, b+margin); i++ {
			nearSpan[i] = true
			inSpan[i] = i >= a+margin && i < b-margin
		}
	}
	var sig, noise float64
	var inside []int16
	var origInside []int16
	for i := range n {
		switch {
		case inSpan[i]:
			inside, origInside = append(inside, got[i]), append(origInside, orig[i])
		case !nearSpan[i]:
			d := float64(got[i]) - float64(orig[i])
			sig += float64(orig[i]) * float64(orig[i])
			noise += d * d
		}
	}
	snr := 10 * math.Log10(sig/max(noise, 1))
	tone, level := toneShare(inside, media.BeepHz), rmsOf(inside)
	t.Logf("beep=%v: inside the spans rms %.0f (original %.0f), 1 kHz share %.3f (original %.3f); outside: SNR %.1f dB against the original",
		beep, level, rmsOf(origInside), tone, toneShare(origInside, media.BeepHz), snr)
	if snr < 20 {
		t.Errorf("audio outside the spans changed: SNR %.1f dB, want at least 20", snr)
	}
	if beep && (tone < 0.8 || level < 3000) {
		t.Errorf("no beep in the spans: 1 kHz share %.3f, rms %.0f", tone, level)
	}
	if !beep && level > 100 {
		t.Errorf("the spans are not silent: rms %.0f", level)
	}
}

// pcm16 decodes a file's audio to 16 kHz mono signed 16-bit samples.
func pcm16(t *testing.T, path string) []int16 {
	t.Helper()
	raw, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-i", path, "-ac", "1", "-ar", "16000", "-f", "s16le", "-").Output()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	s := make([]int16, len(raw)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return s
}

// toneShare is the share of the samples' power at freq (Goertzel): near 1
// for a pure tone at freq.
func toneShare(s []int16, freq float64) float64 {
	c := 2 * math.Cos(2*math.Pi*freq/censorRate)
	var s1, s2, total float64
	for _, v := range s {
		s1, s2 = float64(v)+c*s1-s2, s1
		total += float64(v) * float64(v)
	}
	if total == 0 {
		return 0
	}
	return 2 * (s1*s1 + s2*s2 - c*s1*s2) / (float64(len(s)) * total)
}

func rmsOf(s []int16) float64 {
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(max(1, len(s))))
}
