package store

import (
	"errors"
	"sync"
	"testing"
)

// TestAdvanceUpload: the conditional update that lets API nodes share an
// upload moves it only from the bytes it holds, in its session, while it
// is incomplete; of parallel requests from the same offset exactly one
// counts; a deleted upload is ErrNotFound.
func TestAdvanceUpload(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := t.Context()
		up := &Upload{ID: "up_adv", OrgID: "o", UserID: "u", SessionID: "ses_1", Key: "uploads/up_adv.bin", Total: -1}
		if err := s.SaveUpload(ctx, up); err != nil {
			t.Fatal(err)
		}
		const racers = 8
		var wg sync.WaitGroup
		moved := make(chan bool, racers)
		for range racers {
			wg.Go(func() {
				ok, err := s.AdvanceUpload(ctx, up.ID, "ses_1", 0, 5, 10, false)
				if err != nil {
					t.Error(err)
				}
				moved <- ok
			})
		}
		wg.Wait()
		close(moved)
		n := 0
		for ok := range moved {
			if ok {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d of %d parallel advances from 0 moved the upload; want exactly one", n, racers)
		}
		for _, c := range []struct {
			name      string
			session   string
			from, to  int64
			complete  bool
			wantMoved bool
		}{
			{"from bytes it does not hold", "ses_1", 0, 7, false, false},
			{"in an old session", "ses_0", 5, 10, false, false},
			{"to complete", "ses_1", 5, 10, true, true},
			{"once complete", "ses_1", 10, 10, false, false},
		} {
			ok, err := s.AdvanceUpload(ctx, up.ID, c.session, c.from, c.to, 10, c.complete)
			if err != nil || ok != c.wantMoved {
				t.Errorf("advance %s = %v, %v; want %v", c.name, ok, err, c.wantMoved)
			}
		}
		got, err := s.GetUpload(ctx, up.ID)
		if err != nil || got.Received != 10 || got.Total != 10 || !got.Complete {
			t.Fatalf("record %+v, %v; want 10 of 10 bytes, complete", got, err)
		}
		if _, err := s.AdvanceUpload(ctx, "up_gone", "ses_1", 0, 1, 1, false); !errors.Is(err, ErrNotFound) {
			t.Errorf("advance of a missing upload: %v, want ErrNotFound", err)
		}
	})
}
