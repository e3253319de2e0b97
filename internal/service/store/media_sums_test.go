package store

import (
	"errors"
	"testing"
)

// TestMediaSums: a render's sum is recorded, replaced when it is made
// again, unknown for media made before sums were recorded, and forgotten
// with its project's media.
func TestMediaSums(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := t.Context()
		if _, err := s.MediaSumOf(ctx, "media/p_1/c01.mp4"); !errors.Is(err, ErrNotFound) {
			t.Errorf("sum of an unrecorded file = %v; want ErrNotFound", err)
		}
		for _, key := range []string{"media/p_1/c01.mp4", "media/p_1/c01.preview.mp4", "media/p_12/c01.mp4"} {
			if err := s.RecordMediaSum(ctx, key, MediaSum{Size: 1, SHA256: "one"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RecordMediaSum(ctx, "media/p_1/c01.mp4", MediaSum{Size: 2, SHA256: "two"}); err != nil {
			t.Fatal(err)
		}
		if got, err := s.MediaSumOf(ctx, "media/p_1/c01.mp4"); err != nil || got != (MediaSum{2, "two"}) {
			t.Errorf("sum after a new render = %+v, %v; want the new one", got, err)
		}
		if err := s.DeleteMediaSums(ctx, "media/p_1/"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MediaSumOf(ctx, "media/p_1/c01.preview.mp4"); !errors.Is(err, ErrNotFound) {
			t.Errorf("sum of a deleted project's file = %v; want ErrNotFound", err)
		}
		if got, err := s.MediaSumOf(ctx, "media/p_12/c01.mp4"); err != nil || got.Size != 1 {
			t.Errorf("another project's sum = %+v, %v; want it kept", got, err)
		}
	})
}
