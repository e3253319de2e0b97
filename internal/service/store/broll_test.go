package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestBrollLibraryPerOrg(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		ctx := context.Background()
		oven := &BrollItem{OrgID: "org_a", Name: "oven.png", Key: "broll/org_a/x.png", Keywords: []string{"oven", "bake bread"},
			Still: true, Width: 640, Height: 480, Size: 1234}
		clip := &BrollItem{OrgID: "org_a", Name: "garden.mp4", Key: "broll/org_a/y.mp4", Keywords: []string{"garden"},
			Width: 1280, Height: 720, DurationSec: 4.5, Size: 99999}
		other := &BrollItem{OrgID: "org_b", Name: "b.png", Key: "broll/org_b/z.png", Keywords: []string{"oven"}, Still: true, Width: 2, Height: 2}
		at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		for _, it := range []*BrollItem{oven, clip, other} {
			at = at.Add(time.Second)
			s.SetClock(func() time.Time { return at })
			if err := s.AddBrollItem(ctx, it); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AddBrollItem(ctx, &BrollItem{OrgID: "org_a", Keywords: []string{"a,b"}}); err == nil {
			t.Error("a keyword holding a comma was stored")
		}
		got, err := s.BrollItems(ctx, "org_a")
		if err != nil || len(got) != 2 {
			t.Fatalf("org_a's library: %v, %v; want 2 items", got, err)
		}
		if g := got[0]; g.ID != oven.ID || !g.Still || g.Width != 640 || g.Key != oven.Key || !slices.Equal(g.Keywords, oven.Keywords) ||
			!g.CreatedAt.Equal(oven.CreatedAt) || g.Size != 1234 {
			t.Errorf("first item %+v, want %+v", g, oven)
		}
		if g := got[1]; g.ID != clip.ID || g.Still || g.DurationSec != 4.5 {
			t.Errorf("second item %+v, want %+v", g, clip)
		}
		if _, err := s.BrollItem(ctx, "org_a", other.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("another org's item: %v, want ErrNotFound", err)
		}
		if err := s.RemoveBrollItem(ctx, "org_a", other.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("removing another org's item: %v, want ErrNotFound", err)
		}
		if err := s.RemoveBrollItem(ctx, "org_a", oven.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := s.BrollItems(ctx, "org_a"); err != nil || len(got) != 1 || got[0].ID != clip.ID {
			t.Errorf("after the removal: %v, %v", got, err)
		}
		keys, err := s.ReferencedKeys(ctx)
		if err != nil || !slices.Contains(keys, clip.Key) || slices.Contains(keys, oven.Key) {
			t.Errorf("referenced keys %v, %v: want the library's pictures", keys, err)
		}
	})
}
