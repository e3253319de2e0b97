package store

import (
	"reflect"
	"testing"
)

func TestTranscriptReplaceAndRead(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		s, _ := be.open(t)
		ctx := t.Context()
		if got, err := s.Transcript(ctx, "p1"); err != nil || len(got) != 0 {
			t.Fatalf("no transcript yet: %v %v", got, err)
		}
		first := []TranscriptWord{{"hello", 100, 400, 0.9}, {"world", 450, 900, 0.5}}
		if err := s.ReplaceTranscript(ctx, "p1", first); err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceTranscript(ctx, "p2", []TranscriptWord{{"other", 0, 10, 1}}); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Transcript(ctx, "p1"); err != nil || !reflect.DeepEqual(got, first) {
			t.Errorf("got %v %v, want %v", got, err, first)
		}
		// A retry replaces the words; an empty transcript clears them.
		if err := s.ReplaceTranscript(ctx, "p1", first[1:]); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Transcript(ctx, "p1"); !reflect.DeepEqual(got, first[1:]) {
			t.Errorf("after replace: %v", got)
		}
		if err := s.ReplaceTranscript(ctx, "p1", nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Transcript(ctx, "p1"); len(got) != 0 {
			t.Errorf("after clearing: %v", got)
		}
		if got, _ := s.Transcript(ctx, "p2"); len(got) != 1 {
			t.Errorf("another project's transcript changed: %v", got)
		}
	})
}
