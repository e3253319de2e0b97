package transcribe

import (
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// TestDecodeAmongLetsTheSoundDecide: festival says "pick a card and put it
// back"; decoded among those words and the sound-alikes "cart" and "bag",
// equally likely, the spoken ones win where they differ, timed as festival
// spoke them; words out of the grammar's reach (not in the dictionary, not
// letters) are left out. (Short function words may swap: "it" as "and".)
func TestDecodeAmongLetsTheSoundDecide(t *testing.T) {
	toolexectest.RequireTools(t, "festival", "ffmpeg", PocketsphinxTool)
	wav, spoken := speechtest.Timed(t, t.TempDir(), "Pick a card and put it back.")
	words, err := (&Pocketsphinx{}).DecodeAmong(t.Context(), wav,
		[]string{"pick", "a", "card", "cart", "and", "put", "it", "back", "bag", "zzxqv", "c3po"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range words {
		got = append(got, w.Text)
	}
	t.Logf("decoded %q", got)
	at := map[string]Word{}
	for _, w := range words {
		at[w.Text] = w
	}
	for _, s := range spoken {
		switch s.Text {
		case "pick", "card", "back":
			w, ok := at[s.Text]
			if !ok {
				t.Errorf("%q not decoded: %q", s.Text, got)
			} else if w.Start-s.Start < -0.15 || w.Start-s.Start > 0.15 || w.End-s.End < -0.15 || w.End-s.End > 0.15 {
				t.Errorf("%q decoded at %.2f-%.2f s; festival's at %.2f-%.2f s", s.Text, w.Start, w.End, s.Start, s.End)
			}
		}
	}
	for _, w := range []string{"cart", "bag", "zzxqv", "c3po"} {
		if _, ok := at[w]; ok {
			t.Errorf("%q decoded: %q", w, got)
		}
	}
}

// TestDecodeAmongHearsAnExtraPronunciation: a word heard only by a
// pronunciation given beside the dictionary's.
func TestDecodeAmongHearsAnExtraPronunciation(t *testing.T) {
	toolexectest.RequireTools(t, "festival", "ffmpeg", PocketsphinxTool)
	wav, _ := speechtest.Timed(t, t.TempDir(), "The sheet is clean.")
	vocab := []string{"the", "shirt", "is", "clean", "blorf"}
	words, err := (&Pocketsphinx{}).DecodeAmong(t.Context(), wav, vocab, []Pronunciation{{Word: "blorf", Phones: "sh iy t"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range words {
		got = append(got, w.Text)
	}
	if strings.Join(got, " ") != "the blorf is clean" {
		t.Fatalf("decoded %q; want blorf heard as SH IY T", got)
	}
	if _, err := (&Pocketsphinx{}).DecodeAmong(t.Context(), wav, []string{"zzxqv"}, nil); err == nil {
		t.Fatal("a vocabulary with no word in the dictionary: no error")
	}
}
