package store

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// saveClips stores clips with the given curation ids for a new project of org
// and returns their composite ids.
func saveClips(t *testing.T, s *Store, org string, curations ...string) []string {
	t.Helper()
	p := newProject(org)
	clips := make([]Clip, len(curations))
	ids := make([]string, len(curations))
	for i, c := range curations {
		ids[i] = p.ID + "." + c
		clips[i] = Clip{ID: ids[i], ProjectID: p.ID, CurationID: c, OrgID: org, URIForExport: "http://x/" + c + ".mp4"}
	}
	if err := s.ReplaceClips(context.Background(), p.ID, org, clips); err != nil {
		t.Fatal(err)
	}
	return ids
}

func clipIDs(clips []Clip) []string {
	out := make([]string, len(clips))
	for i, c := range clips {
		out[i] = c.ID
	}
	return out
}

func TestGetClip(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		ids := saveClips(t, s, "org", "c1")
		c, err := s.GetClip(ctx, ids[0])
		if err != nil || c.ID != ids[0] || c.OrgID != "org" || c.CurationID != "c1" {
			t.Fatalf("GetClip: %+v %v", c, err)
		}
		if _, err := s.GetClip(ctx, "nope.c1"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("GetClip of a missing clip: %v, want ErrNotFound", err)
		}
	})
}

// TestClipTimesReadBackEqual: a clip's times, written as times, read back
// equal (UTC, to the millisecond) on both engines, so its Version, a copy
// job's ClipVersion, is the same text before and after.
func TestClipTimesReadBackEqual(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		created := time.Date(2026, 11, 23, 1, 2, 3, 456789000, time.FixedZone("CET", 3600))
		updated := created.Add(90 * time.Minute)
		in := Clip{ID: "p.c1", CurationID: "c1", CreatedAt: created, UpdatedAt: updated}
		if err := s.ReplaceClips(ctx, "p", "org", []Clip{in}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetClip(ctx, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.CreatedAt.Equal(stamp(created)) || !got.UpdatedAt.Equal(stamp(updated)) || got.CreatedAt.Location() != time.UTC {
			t.Errorf("read times %v, %v; want %v, %v", got.CreatedAt, got.UpdatedAt, stamp(created), stamp(updated))
		}
		if got.Version() != in.Version() || got.Version() != "2026-11-23T01:32:03.456Z" {
			t.Errorf("version read %q, written %q; want both 2026-11-23T01:32:03.456Z", got.Version(), in.Version())
		}
	})
}

func TestCollectionContents(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		ids := saveClips(t, s, "org", "c1", "c2", "c3")
		theirs := saveClips(t, s, "other", "c1")

		col, err := s.CreateCollection(ctx, "org", "best", 0)
		if err != nil || col.CollectionName != "best" || col.CreatedAt.IsZero() || !col.CreatedAt.Equal(col.UpdatedAt) {
			t.Fatalf("CreateCollection: %+v %v", col, err)
		}
		// Added in the order c3, c1, c3 (again: no change), c2; a change of the
		// contents stamps updatedAt, adding a clip already there does not.
		later := time.Now().Add(time.Hour)
		s.SetClock(func() time.Time { return later })
		for i, id := range []string{ids[2], ids[0], ids[2], ids[1]} {
			if i == 2 {
				s.SetClock(func() time.Time { return later.Add(time.Hour) })
			}
			if err := s.AddCollectionContent(ctx, "org", col.CollectionID, id); err != nil {
				t.Fatalf("add %s: %v", id, err)
			}
			if i == 2 {
				if got, _ := s.GetCollection(ctx, "org", col.CollectionID); Timestamp(got.UpdatedAt) != Timestamp(later) {
					t.Errorf("updatedAt %s after adding a clip twice, want %s", Timestamp(got.UpdatedAt), Timestamp(later))
				}
			}
		}
		if got, _ := s.GetCollection(ctx, "org", col.CollectionID); Timestamp(got.UpdatedAt) != Timestamp(later.Add(time.Hour)) || !got.CreatedAt.Equal(col.CreatedAt) {
			t.Errorf("after adds: %+v, want updatedAt %s", got, Timestamp(later.Add(time.Hour)))
		}
		got, err := s.CollectionClips(ctx, "org", col.CollectionID, 0, -1)
		if want := []string{ids[2], ids[0], ids[1]}; err != nil || !slices.Equal(clipIDs(got), want) {
			t.Fatalf("CollectionClips = %v, %v; want %v", clipIDs(got), err, want)
		}
		if page, _ := s.CollectionClips(ctx, "org", col.CollectionID, 1, 1); !slices.Equal(clipIDs(page), []string{ids[0]}) {
			t.Errorf("second page of size 1 = %v, want [%s]", clipIDs(page), ids[0])
		}

		// Another org's clip, an unknown clip and another org's view of the collection.
		if err := s.AddCollectionContent(ctx, "org", col.CollectionID, theirs[0]); !errors.Is(err, ErrClipNotFound) {
			t.Errorf("add another org's clip: %v, want ErrClipNotFound", err)
		}
		if err := s.AddCollectionContent(ctx, "org", col.CollectionID, "p.nope"); !errors.Is(err, ErrClipNotFound) {
			t.Errorf("add unknown clip: %v, want ErrClipNotFound", err)
		}
		if err := s.AddCollectionContent(ctx, "other", col.CollectionID, theirs[0]); !errors.Is(err, ErrNotFound) {
			t.Errorf("add to another org's collection: %v, want ErrNotFound", err)
		}
		if _, err := s.CollectionClips(ctx, "other", col.CollectionID, 0, -1); !errors.Is(err, ErrNotFound) {
			t.Errorf("another org lists the clips: %v, want ErrNotFound", err)
		}

		// Removing: present, then absent.
		if err := s.RemoveCollectionContent(ctx, "org", col.CollectionID, ids[0]); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveCollectionContent(ctx, "org", col.CollectionID, ids[0]); !errors.Is(err, ErrNotInCollection) {
			t.Errorf("remove twice: %v, want ErrNotInCollection", err)
		}
		if err := s.RemoveCollectionContent(ctx, "org", "col_nope", ids[1]); !errors.Is(err, ErrNotFound) {
			t.Errorf("remove from a missing collection: %v, want ErrNotFound", err)
		}

		// Lists by content id see only collections holding the clip.
		other, err := s.CreateCollection(ctx, "org", "other", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddCollectionContent(ctx, "org", other.CollectionID, ids[1]); err != nil {
			t.Fatal(err)
		}
		list, total, err := s.ListCollections(ctx, "org", ids[1], 0, 10)
		if err != nil || total != 2 || len(list) != 2 || list[0].CollectionID != col.CollectionID {
			t.Errorf("collections holding %s: %+v total %d %v", ids[1], list, total, err)
		}
		if list, total, _ := s.ListCollections(ctx, "org", ids[2], 0, 10); total != 1 || len(list) != 1 || list[0].CollectionID != col.CollectionID {
			t.Errorf("collections holding %s: %+v total %d", ids[2], list, total)
		}

		// Deleting a collection takes its contents along.
		if err := s.DeleteCollection(ctx, "other", col.CollectionID); !errors.Is(err, ErrNotFound) {
			t.Errorf("another org deletes: %v, want ErrNotFound", err)
		}
		if err := s.DeleteCollection(ctx, "org", col.CollectionID); err != nil {
			t.Fatal(err)
		}
		var left int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM collection_contents WHERE collection_id = ?`, col.CollectionID).Scan(&left); err != nil || left != 0 {
			t.Errorf("%d contents left after delete (%v)", left, err)
		}
		if err := s.DeleteCollection(ctx, "org", col.CollectionID); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v, want ErrNotFound", err)
		}
	})
}

func TestCollectionQuotaAndPaging(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		// Parallel creates never overshoot the quota.
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				_, err := s.CreateCollection(ctx, "org", "c", 5)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		var ok, over int
		for err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrCollectionQuota):
				over++
			default:
				t.Fatal(err)
			}
		}
		if ok != 5 || over != 3 {
			t.Fatalf("%d created, %d over quota; want 5 and 3", ok, over)
		}
		// Another org has its own quota.
		if _, err := s.CreateCollection(ctx, "other", "c", 5); err != nil {
			t.Fatalf("another org's first collection: %v", err)
		}

		all, total, err := s.ListCollections(ctx, "org", "", 0, 100)
		if err != nil || total != 5 || len(all) != 5 {
			t.Fatalf("list: %d of %d, %v", len(all), total, err)
		}
		var paged []string
		for off := 0; off < total; off += 2 {
			page, n, err := s.ListCollections(ctx, "org", "", off, 2)
			if err != nil || n != 5 {
				t.Fatalf("page at %d: total %d, %v", off, n, err)
			}
			for _, c := range page {
				paged = append(paged, c.CollectionID)
			}
		}
		want := make([]string, len(all))
		for i, c := range all {
			want[i] = c.CollectionID
		}
		if !slices.Equal(paged, want) {
			t.Errorf("pages of 2 = %v, want %v", paged, want)
		}
	})
}
