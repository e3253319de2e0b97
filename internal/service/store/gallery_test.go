package store

import (
	"context"
	"errors"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestOrgProjectsNewestFirstWithClipCounts(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	var ids []string
	for range 3 {
		p := newProject("org")
		p.CreatedAt = "2026-01-01T00:00:00.000Z" // the same millisecond: insertion order decides
		if err := s.CreateProject(ctx, p, Admission{}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	if err := s.CreateProject(ctx, newProject("other"), Admission{}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceClips(ctx, ids[0], "org", []apitypes.ExportableClip{{ID: ids[0] + ".a"}, {ID: ids[0] + ".b"}}); err != nil {
		t.Fatal(err)
	}
	page, total, err := s.OrgProjects(ctx, "org", 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || len(page) != 2 || page[0].ID != ids[1] || page[1].ID != ids[0] || page[1].ClipCount != 2 || page[0].ClipCount != 0 {
		t.Fatalf("page after 1 of %v: total %d, %+v", ids, total, page)
	}
	byID, err := s.OrgProjectsByID(ctx, "other", ids)
	if err != nil || len(byID) != 0 {
		t.Fatalf("another org's ids: %v, %v", byID, err)
	}
}

func TestRevokeKey(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	key, err := s.CreateKey(ctx, "org", "u")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LookupKey(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("lookup of a revoked key: %v", err)
	}
	if keys, err := s.OrgKeys(ctx, "org"); err != nil || len(keys) != 0 {
		t.Fatalf("keys of the org after revoking its only one: %v, %v", keys, err)
	}
	if err := s.RevokeKey(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoking again: %v, want ErrNotFound", err)
	}
}
