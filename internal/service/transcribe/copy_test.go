package transcribe

import (
	"reflect"
	"testing"
)

// spoken makes words of s, 0.3 s each, with a pause of a second after a "|".
func spoken(s ...string) []Word {
	var out []Word
	at := 0.0
	for _, w := range s {
		if w == "|" {
			at += 1
			continue
		}
		out = append(out, Word{Text: w, Start: at, End: at + 0.3, Confidence: 1})
		at += 0.35
	}
	return out
}

func TestKeyPhrasesAndRuns(t *testing.T) {
	words := spoken("the", "solar", "panel", "is", "cheap", "|", "a", "solar", "panel", "on", "the", "roof", "|", "we", "like", "it")
	if got := len(Runs(words)); got != 3 {
		t.Errorf("runs: %d, want 3", got)
	}
	want := []string{"solar panel", "cheap", "roof"}
	if got := KeyPhrases(words, 5); !reflect.DeepEqual(got, want) {
		t.Errorf("key phrases %q, want %q", got, want)
	}
	if got := KeyPhrases(spoken("the", "and", "|", "is"), 5); len(got) != 0 {
		t.Errorf("only stop words: %q", got)
	}
	if got := Text(Within(words, 1.3, 3.3)); got != "cheap a solar" {
		t.Errorf("within: %q", got)
	}
	if got := Sentence("hello there"); got != "Hello there." {
		t.Errorf("sentence: %q", got)
	}
}

func TestCaptions(t *testing.T) {
	words := []Word{{"hello", 10.0, 10.4, 1}, {"there", 10.5, 10.9, 1}, {"again", 12.0, 12.5, 1}}
	cues := Cues(words, 9.5, 2.8)
	want := []Cue{{0.5, 1.4, "hello there"}, {2.5, 2.8, "again"}}
	if !reflect.DeepEqual(cues, want) {
		t.Fatalf("cues %+v, want %+v", cues, want)
	}
	srt := "1\n00:00:00,500 --> 00:00:01,400\nhello there\n\n2\n00:00:02,500 --> 00:00:02,800\nagain\n\n"
	if got := SRT(cues); got != srt {
		t.Errorf("SRT:\n%s\nwant\n%s", got, srt)
	}
	vtt := "WEBVTT\n\n00:00:00.500 --> 00:00:01.400\nhello there\n\n00:00:02.500 --> 00:00:02.800\nagain\n\n"
	if got := VTT(cues); got != vtt {
		t.Errorf("VTT:\n%s\nwant\n%s", got, vtt)
	}
	if got := cueTime(3725.0456, ","); got != "01:02:05,046" {
		t.Errorf("cueTime: %s", got)
	}
}
