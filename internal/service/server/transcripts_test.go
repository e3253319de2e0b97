package server

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

var spoken = []string{
	"The quick brown fox jumps over the lazy dog.",
	"We are going to the market to buy some fresh bread.",
	"Please call me when you arrive at the station.",
}

// A project of festival speech gets a transcript: its clip's text holds the
// spoken words, its title and keywords come from them, and its captions are
// served beside its renders. The same video with sourceLang de completes
// without a transcript, and /healthz names the recogniser.
func TestTranscribedClips(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, append(speechtest.Tools, transcribe.PocketsphinxTool)...)
	video, _ := speechtest.Video(t, t.TempDir(), spoken, 1.0)
	data, err := os.ReadFile(video)
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, Config{ASR: transcribe.KindPocketsphinx})
	c := newClient(t, srv, devKey)
	anon := newClient(t, srv, "")
	if resp, body := anon.do(http.MethodGet, "/healthz?detail=1", nil); resp.StatusCode != http.StatusOK || string(body) != "ok\nasr: pocketsphinx\n" {
		t.Errorf("healthz detail: %d %q", resp.StatusCode, body)
	}

	create := func(lang string) apitypes.Project {
		return c.mustCreate(map[string]any{
			"videoUrl":     c.uploadFile(data, 1<<20),
			"curationPref": map[string]any{"skipCurate": true},
			"importPref":   map[string]any{"sourceLang": lang},
		})
	}
	en, de := create("en"), create("de")

	c.waitStage(en.ID, pipelineTimeout, apitypes.StageComplete)
	clips := c.clips(en.ID)
	if len(clips) != 1 {
		t.Fatalf("%d clips, want the one uncut clip", len(clips))
	}
	clip := clips[0]
	heard := strings.Fields(clip.Text)
	want := strings.Fields(strings.ToLower(strings.NewReplacer(".", "").Replace(strings.Join(spoken, " "))))
	if wer := speechtest.WER(want, heard); wer >= 0.2 {
		t.Errorf("clip text %q: WER %.0f%%", clip.Text, wer*100)
	}
	if clip.Title == "" || strings.HasPrefix(clip.Title, "Clip 1 of") || len(clip.Keywords) == 0 || clip.Hashtags == "" {
		t.Errorf("copy not from the transcript: title %q, keywords %q, hashtags %q", clip.Title, clip.Keywords, clip.Hashtags)
	}
	for _, k := range clip.Keywords {
		for _, w := range strings.Fields(k) {
			if !strings.Contains(clip.Text, w) {
				t.Errorf("keyword %q was not said", k)
			}
		}
	}
	for ext, ctype := range map[string]string{".srt": "application/x-subrip", ".vtt": "text/vtt"} {
		addr := strings.Replace(clip.URIForExport, ".mp4?", ext+"?", 1) // the clip's signature serves its captions
		resp, body := anon.do(http.MethodGet, addr, nil)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) || !strings.Contains(string(body), "-->") || !strings.Contains(string(body), "fox") {
			t.Errorf("GET %s: %d %s %q", addr, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}

	if got := c.waitStage(de.ID, time.Minute, apitypes.StageComplete); got.Error != nil {
		t.Errorf("de project: error %q", *got.Error)
	}
	for _, clip := range c.clips(de.ID) {
		if clip.Text != "" || !strings.HasPrefix(clip.Title, "Clip 1 of") {
			t.Errorf("de clip has copy from a transcript: text %q, title %q", clip.Text, clip.Title)
		}
	}
}
