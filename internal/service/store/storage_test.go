package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
)

// addUpload stores an upload of org holding n bytes, created at created.
func addUpload(t *testing.T, s *Store, org string, n int64, complete bool, created time.Time) *Upload {
	t.Helper()
	u := &Upload{ID: NewID("up_"), OrgID: org, UserID: "u", Key: "/nowhere/" + org, Total: n, Received: n, Complete: complete,
		CreatedAt: created}
	if _, err := s.db.ExecContext(context.Background(), `INSERT INTO uploads(`+uploadColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.OrgID, u.UserID, u.SessionID, u.Key, u.Total, u.Received, boolInt(u.Complete), timeText(u.CreatedAt)); err != nil {
		t.Fatal(err)
	}
	return u
}

// addProject stores a project of org "org" in stage that keeps size bytes, made
// from the upload sourceID ("" for none), expiring at expire.
func addProject(t *testing.T, s *Store, stage apitypes.Stage, size int64, sourceID string, expire time.Time) *Project {
	t.Helper()
	p := newProject("org")
	p.Stage, p.StorageSize, p.SourceID, p.StorageStatus, p.StorageExpireAt = stage, size, sourceID, StorageTemp, expire
	if err := s.CreateProject(context.Background(), p, Admission{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// An org's storage is its uploads and its projects' media, an upload that
// a project with media was made from counted once; other orgs' bytes are not
// its own.
func TestStorageUsed(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		now := time.Now()
		used := addUpload(t, s, "org", 1000, true, now)
		addUpload(t, s, "org", 300, false, now)
		addUpload(t, s, "other", 5000, true, now)
		addProject(t, s, apitypes.StageComplete, 1700, used.ID, now) // its source (1000) and renders
		addProject(t, s, apitypes.StageImport, 0, "", now)
		got, err := s.StorageUsed(ctx, "org")
		if err != nil {
			t.Fatal(err)
		}
		if got != 300+1700 {
			t.Errorf("StorageUsed = %d, want 2000", got)
		}
	})
}

// Over its storage quota an org can neither create a project nor store
// more, and the refusal names the quota; without a quota nothing is refused.
func TestStorageQuotaRefusesCreateAndBytes(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		addUpload(t, s, "org", 2000, true, time.Now())
		var qe *quota.StorageQuotaError
		if err := s.CreateProject(ctx, newProject("org"), Admission{StorageQuota: 2000}); !errors.As(err, &qe) || qe.Quota != 2000 || qe.Used != 2000 {
			t.Fatalf("create over the quota: %v, want a StorageQuotaError of 2000 used of 2000", err)
		}
		if err := s.CheckStorage(ctx, "org", 1, 2500); err != nil {
			t.Errorf("1 byte under a 2500-byte quota: %v", err)
		}
		if err := s.CheckStorage(ctx, "org", 501, 2500); !errors.As(err, &qe) || qe.Adding != 501 {
			t.Errorf("501 bytes over a 2500-byte quota: %v", err)
		}
		if err := s.CreateProject(ctx, newProject("org"), Admission{}); err != nil {
			t.Errorf("create without a quota: %v", err)
		}
		if err := s.CreateProject(ctx, newProject("other"), Admission{StorageQuota: 2000}); err != nil {
			t.Errorf("another org's create: %v", err)
		}
	})
}

// Uploads expire when old and unused: unfinished sessions and complete
// files no project names; an upload a project uses stays.
func TestExpiredUploads(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		now := time.Now()
		old := now.Add(-200 * time.Hour)
		unfinished := addUpload(t, s, "org", 10, false, old)
		unused := addUpload(t, s, "org", 20, true, old)
		used := addUpload(t, s, "org", 30, true, old)
		addUpload(t, s, "org", 40, false, now) // recent
		addProject(t, s, apitypes.StageComplete, 30, used.ID, now.Add(time.Hour))

		cutoff := now.Add(-168 * time.Hour)
		ups, err := s.ExpiredUploads(ctx, cutoff, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, u := range ups {
			ids = append(ids, u.ID)
		}
		if len(ids) != 2 || !slices.Contains(ids, unfinished.ID) || !slices.Contains(ids, unused.ID) {
			t.Fatalf("expired uploads %v, want the unfinished %s and the unused %s", ids, unfinished.ID, unused.ID)
		}
		if ok, err := s.DeleteUpload(ctx, unused.ID, cutoff); !ok || err != nil {
			t.Errorf("DeleteUpload(unused) = %v, %v", ok, err)
		}
		if ok, err := s.DeleteUpload(ctx, used.ID, cutoff); ok || err != nil {
			t.Errorf("DeleteUpload(used) = %v, %v; want it kept", ok, err)
		}
		if _, err := s.GetUpload(ctx, unused.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted upload still readable: %v", err)
		}
	})
}

// A PUT still writing when its upload was deleted cannot bring the record
// back: its save is a miss.
func TestSaveUploadDoesNotResurrect(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		u := &Upload{ID: NewID("up_"), OrgID: "org", UserID: "u", Key: "p", Total: -1}
		if err := s.SaveUpload(ctx, u); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.DeleteUpload(ctx, u.ID, time.Now().Add(time.Hour)); !ok || err != nil {
			t.Fatalf("DeleteUpload = %v, %v", ok, err)
		}
		u.Received = 5
		if err := s.SaveUpload(ctx, u); !errors.Is(err, ErrNotFound) {
			t.Errorf("save of a deleted upload: %v, want ErrNotFound", err)
		}
		if _, err := s.GetUpload(ctx, u.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the deleted upload came back: %v", err)
		}
	})
}

// Projects past storageExpireAt are listed once they have ended; expiring
// one marks it EXPIRED with no size, clears its clips' addresses and hands
// back the upload it was made from unless another kept project uses it.
func TestExpireProjectMedia(t *testing.T) {
	t.Parallel()
	forEachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		s, _ := be.open(t)
		now := time.Now()
		past, future := now.Add(-time.Minute), now.Add(time.Hour)
		up := addUpload(t, s, "org", 100, true, now)
		shared := addUpload(t, s, "org", 100, true, now)
		done := addProject(t, s, apitypes.StageComplete, 500, up.ID, past)
		sharing := addProject(t, s, apitypes.StageComplete, 500, shared.ID, past)
		addProject(t, s, apitypes.StageComplete, 500, shared.ID, future)
		addProject(t, s, apitypes.StageRender, 0, "", past) // still in work
		addProject(t, s, apitypes.StageComplete, 500, "", future)
		if err := s.ReplaceClips(ctx, done.ID, "org", []Clip{
			{ID: done.ID + ".a", CurationID: "a", URIForExport: "http://x/media/a.mp4", URIForPreview: "http://x/media/a.p.mp4", StorageUsed: 400},
		}); err != nil {
			t.Fatal(err)
		}

		ids, err := s.ExpiredProjects(ctx, now, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 2 || !slices.Contains(ids, done.ID) || !slices.Contains(ids, sharing.ID) {
			t.Fatalf("expired projects %v, want %s and %s only", ids, done.ID, sharing.ID)
		}
		ups, err := s.ExpireProjectMedia(ctx, done.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ups) != 1 || ups[0].ID != up.ID {
			t.Errorf("uploads to delete %+v, want %s", ups, up.ID)
		}
		p, err := s.GetProject(ctx, done.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p.StorageStatus != StorageExpired || p.StorageSize != 0 || p.API().StorageStatus != StorageExpired {
			t.Errorf("expired project: status %q size %d", p.StorageStatus, p.StorageSize)
		}
		clips, _ := s.ListClips(ctx, done.ID, 0, 10)
		if len(clips) != 1 || clips[0].URIForExport != "" || clips[0].URIForPreview != "" || clips[0].StorageUsed != 0 {
			t.Errorf("clips of an expired project %+v, want no addresses", clips)
		}
		if ups, err := s.ExpireProjectMedia(ctx, sharing.ID); err != nil || len(ups) != 0 {
			t.Errorf("uploads to delete of a project sharing its upload: %+v, %v; want none", ups, err)
		}
		if ids, _ := s.ExpiredProjects(ctx, now, 10); len(ids) != 0 {
			t.Errorf("expired projects after expiry %v, want none", ids)
		}
	})
}
