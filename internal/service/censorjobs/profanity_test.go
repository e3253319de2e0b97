package censorjobs

import (
	"slices"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

func TestProfane(t *testing.T) {
	for w, want := range map[string]bool{
		"damn": true, "Damn": true, "damn(2)": true, "hell,": true, "crap": true,
		"hello": false, "dam": false, "": false, "shell": false,
	} {
		if got := Profane(w); got != want {
			t.Errorf("Profane(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestSpans(t *testing.T) {
	words := []store.TranscriptWord{
		{Word: "damn", StartMs: 500, EndMs: 900},   // before the clip
		{Word: "hell", StartMs: 1800, EndMs: 2300}, // across its start
		{Word: "what", StartMs: 2400, EndMs: 2700},
		{Word: "crap", StartMs: 3000, EndMs: 3400},
		{Word: "damn", StartMs: 5900, EndMs: 6400}, // across its end
		{Word: "hell", StartMs: 7000, EndMs: 7300}, // after it
	}
	got := Spans(words, 2000, 6000)
	want := []media.CensorSpan{{Start: 0, End: 0.3}, {Start: 1, End: 1.4}, {Start: 3.9, End: 4}}
	if !slices.Equal(got, want) {
		t.Errorf("Spans = %v, want %v", got, want)
	}
}

func TestMerge(t *testing.T) {
	got := Merge([]media.CensorSpan{{Start: 3, End: 4}, {Start: 1, End: 2}, {Start: 1.5, End: 2.5}, {Start: 2.5, End: 2.7}, {Start: 5, End: 5}})
	want := []media.CensorSpan{{Start: 1, End: 2.7}, {Start: 3, End: 4}}
	if !slices.Equal(got, want) {
		t.Errorf("Merge = %v, want %v (overlapping and touching spans joined, empty ones dropped)", got, want)
	}
}

// TestKeyphrases: every listed word is spotted, at a threshold above 0.
func TestKeyphrases(t *testing.T) {
	list := Keyphrases()
	if len(list) != len(profanity) {
		t.Fatalf("%d keyphrases for %d words", len(list), len(profanity))
	}
	for _, k := range list {
		if !profanity[k.Phrase] || !(k.Threshold > 0) {
			t.Errorf("keyphrase %+v: want a listed word and a threshold above 0", k)
		}
	}
}

func TestVocabularyIsTheClipsWords(t *testing.T) {
	words := []store.TranscriptWord{
		{Word: "early", StartMs: 0, EndMs: 500},   // more than 1 s before the clip
		{Word: "But", StartMs: 1500, EndMs: 1900}, // within 1 s before it
		{Word: "she", StartMs: 2000, EndMs: 2300}, // in it
		{Word: "read(2)", StartMs: 2400, EndMs: 2700},
		{Word: "she", StartMs: 2800, EndMs: 3000},  // again
		{Word: "late", StartMs: 5100, EndMs: 5500}, // more than 1 s after it
	}
	got := Vocabulary(words, 2000, 4000)
	if want := []string{"but", "she", "read"}; !slices.Equal(got, want) {
		t.Fatalf("Vocabulary = %q, want %q", got, want)
	}
}
