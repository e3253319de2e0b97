package media

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// Two subjects, about 45 s each, spoken by festival: the kitchen, then space.
var (
	kitchenTalk = []string{
		"Today we are cooking a simple dinner in the kitchen.",
		"First we boil water for the pasta in a large pot.",
		"While the water heats we chop onions and garlic.",
		"The sauce needs fresh tomatoes and a little olive oil.",
		"Stir the sauce slowly so it does not burn.",
		"Taste the pasta after eight minutes to see if it is ready.",
		"Drain the pasta and mix it with the warm sauce.",
		"Add some cheese on top before you serve the dinner.",
		"A good dinner does not need many things in the kitchen.",
		"Clean the kitchen while the food is still warm.",
		"That is all you need for a quick family dinner.",
	}
	spaceTalk = []string{
		"Now let us talk about the rocket that flew to the moon.",
		"The rocket carried three people into space.",
		"It took them three days to reach the moon.",
		"In space there is no air and the sky is black.",
		"The rocket burned fuel to leave the earth.",
		"On the moon they walked and collected rocks.",
		"Then the rocket brought them back from space.",
		"They landed in the ocean and a ship picked them up.",
		"Many people watched the moon landing on television.",
		"Space travel changed how we see our planet.",
		"One day a rocket may carry people to the moon again.",
	}
)

// Festival speaks the two subjects, pocketsphinx transcribes them, and the
// clips follow the sentences: every boundary within 0.3 s of a sentence
// edge, at least 2 clips of 10-30 s from about 90 s of speech, and with
// topicKeywords naming the second subject, clips only in that part.
func TestCurationFromRealSpeech(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, append(speechtest.Tools, transcribe.PocketsphinxTool)...)
	dir := t.TempDir()
	talk := append(append([]string(nil), kitchenTalk...), spaceTalk...)
	src, spans := speechtest.Video(t, dir, talk, 0.8)
	a, err := Analyze(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(dir, "asr.wav")
	if err := transcribe.ExtractWAV(t.Context(), src, 0, 0, wav); err != nil {
		t.Fatal(err)
	}
	heard, err := (&transcribe.Pocketsphinx{}).Transcribe(t.Context(), wav, "en")
	if err != nil {
		t.Fatal(err)
	}
	words := make([]Word, len(heard))
	for i, w := range heard {
		words[i] = Word{Text: w.Text, Start: w.Start, End: w.End}
	}
	edges := make([]Interval, len(spans))
	for i, s := range spans {
		edges[i] = Interval{s.Start, s.End}
	}
	second := spans[len(kitchenTalk)].Start
	t.Logf("%.1f s of speech in %d sentences, %d words heard; space from %.1f s", spans[len(spans)-1].End-spans[0].Start, len(spans), len(words), second)

	for _, c := range []struct {
		name     string
		keywords []string
		minClips int
	}{
		{"no keywords", nil, 2},
		{"topicKeywords rocket moon space", []string{"rocket", "moon", "space"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := CurateOptions{Durations: [][2]float64{{10, 30}}, Words: words, Keywords: c.keywords}
			hs, err := PickHighlights(a, opts)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i, h := range hs {
				ds, de := nearEdge(h.Start, edges, true), nearEdge(h.End, edges, false)
				worst = max(worst, ds, de)
				if ds > 0.3 || de > 0.3 {
					t.Errorf("clip %d %.2f-%.2f: %.2f s from a sentence start, %.2f s from a sentence end; want <= 0.3 s", i, h.Start, h.End, ds, de)
				}
				if lengthFit(opts.Durations, h.End-h.Start) < 0 {
					t.Errorf("clip %d is %.2f s long", i, h.End-h.Start)
				}
				if c.keywords != nil && h.Start < second-0.3 {
					t.Errorf("clip %d %.2f-%.2f is not in the part about %v, from %.2f s", i, h.Start, h.End, c.keywords, second)
				}
				t.Logf("clip %d %.2f-%.2f (%.1f s): %q", i, h.Start, h.End, h.End-h.Start, transcribeText(heard, h))
			}
			t.Logf("%d clips, worst boundary error %.3f s", len(hs), worst)
			if len(hs) < c.minClips {
				t.Errorf("%d clips, want at least %d", len(hs), c.minClips)
			}
		})
	}
}

func transcribeText(words []transcribe.Word, h Highlight) string {
	var out []string
	for _, w := range transcribe.Within(words, h.Start, h.End) {
		out = append(out, w.Text)
	}
	return strings.Join(out, " ")
}
