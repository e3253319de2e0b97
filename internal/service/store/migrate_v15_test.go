package store

import (
	"context"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// writeV14DataDir makes a data directory as the release of schema version
// 14 left it, through the store's own writes of that release: absolute
// paths under /old/data (where the directory was before it was moved) and
// clip addresses under the public URL of the time.
func writeV14DataDir(t *testing.T) (dir string, ids map[string]string) {
	t.Helper()
	dir = t.TempDir()
	all := migrations
	migrations = migrations[:14]
	defer func() { migrations = all }()
	ctx := context.Background()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids = map[string]string{}
	for _, u := range []*Upload{
		{ID: "up_done", OrgID: "org", UserID: "u", Key: "/old/data/uploads/up_done.bin", Total: 3, Received: 3, Complete: true},
		{ID: "up_half", OrgID: "org", UserID: "u", Key: "/old/data/uploads/up_half.bin", Total: -1, Received: 1},
	} {
		if err := s.SaveUpload(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"imported", "queued"} {
		p := NewProject(Key{OrgID: "org", UserID: "u"}, &apitypes.CreateProjectRequest{VideoURL: "up_done", CurationPref: &apitypes.CurationPref{}}, apitypes.PlatformUploaded, "up_done", s.Now())
		// The columns of that release: later migrations added to them.
		vals, err := projectValues(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.ExecContext(ctx, `INSERT INTO projects(`+projectColumnsV4+`) VALUES (`+placeholders(25)+`)`, vals[:25]...); err != nil {
			t.Fatal(err)
		}
		ids[name] = p.ID
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE projects SET stage = ?, source_path = ? WHERE id = ?`,
		apitypes.StageRender, "/old/data/media/"+ids["imported"]+"/source.mp4", ids["imported"]); err != nil {
		t.Fatal(err)
	}
	clip := Clip{ID: ids["imported"] + ".c01", CurationID: "c01",
		URIForExport:  "http://old-host:8787/media/" + ids["imported"] + "/c01.mp4",
		URIForPreview: "https://clips.example.com/prefix/media/" + ids["imported"] + "/c01.preview.mp4"}
	if err := s.ReplaceClips(ctx, ids["imported"], "org", []Clip{clip}); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{PublishToDir, "webhook:https://hooks.example.com/posts"} {
		a, err := s.ConnectSocialAccountTo(ctx, "org", apitypes.SocialAccount{Platform: "YOUTUBE", ExtUserName: dest}, dest)
		if err != nil {
			t.Fatal(err)
		}
		// The posts table of version 14, written as its CreatePost and
		// MarkPostPublished did (today's write columns it did not have).
		id := NewID("post_")
		loc := "https://hooks.example.com/posts"
		if dest == PublishToDir {
			loc = "/old/data/published/" + a.PostAccountID + "/" + id
			ids["account"] = a.PostAccountID
		}
		now := Timestamp(time.Now())
		if _, err := s.db.ExecContext(ctx, `INSERT INTO posts(id, org_id, project_id, clip_id, post_account_id, sub_account_id,
			title, description, privacy, media_type, platform, publish_to, schedule_id, credits_charged,
			status, attempts, next_at, last_error, published_at, location, created_at)
			VALUES (?, 'org', ?, 'c01', ?, '', 't', '', 'public', 'VIDEO', 'YOUTUBE', ?, NULL, 0, ?, 0, ?, '', ?, ?, ?)`,
			id, ids["imported"], a.PostAccountID, dest, PostPublished, now, now, loc, now); err != nil {
			t.Fatal(err)
		}
		ids[dest] = id
	}
	return dir, ids
}

// TestVersion14DataDirNamesMediaByKeys: the data directory of the previous
// release, moved away from where it was written, opens with every absolute
// path rewritten to its key and every clip address made relative to the
// public URL; nothing else changes, and a key already relative stays.
func TestVersion14DataDirNamesMediaByKeys(t *testing.T) {
	dir, ids := writeV14DataDir(t)
	ctx := context.Background()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatalf("open a version 14 data dir: %v", err)
	}
	defer s.Close()

	for id, want := range map[string]string{"up_done": "uploads/up_done.bin", "up_half": "uploads/up_half.bin"} {
		if u, err := s.GetUpload(ctx, id); err != nil || u.Key != want {
			t.Errorf("upload %s = %+v, %v; want the key %s", id, u, err, want)
		}
	}
	if u, _ := s.GetUpload(ctx, "up_done"); !u.Complete || u.Total != 3 {
		t.Errorf("upload up_done lost its state: %+v", u)
	}
	imported, err := s.GetProject(ctx, ids["imported"])
	if err != nil || imported.SourceKey != "media/"+ids["imported"]+"/source.mp4" || imported.Stage != apitypes.StageRender {
		t.Errorf("imported project = %+v, %v", imported, err)
	}
	if queued, err := s.GetProject(ctx, ids["queued"]); err != nil || queued.SourceKey != "" {
		t.Errorf("queued project = %+v, %v; want no source yet", queued, err)
	}
	clips, err := s.ListClips(ctx, ids["imported"], 0, 10)
	if err != nil || len(clips) != 1 {
		t.Fatalf("clips = %+v, %v", clips, err)
	}
	if c := clips[0]; c.URIForExport != "/media/"+ids["imported"]+"/c01.mp4" || c.URIForPreview != "/media/"+ids["imported"]+"/c01.preview.mp4" {
		t.Errorf("clip addresses %q %q; want them relative to the public URL", c.URIForExport, c.URIForPreview)
	}
	if p, err := s.GetPost(ctx, ids[PublishToDir]); err != nil || p.Location != "published/"+ids["account"]+"/"+p.ID || p.Status != PostPublished {
		t.Errorf("post to a directory = %+v, %v", p, err)
	}
	if p, err := s.GetPost(ctx, ids["webhook:https://hooks.example.com/posts"]); err != nil || p.Location != "https://hooks.example.com/posts" {
		t.Errorf("post to a webhook = %+v, %v; want its address kept", p, err)
	}

	// Reopening applies nothing again; relative names stay as they are.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if u, err := again.GetUpload(ctx, "up_done"); err != nil || u.Key != "uploads/up_done.bin" {
		t.Errorf("after reopening: %+v, %v", u, err)
	}
}

func TestRelativeNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ old, want string }{
		{"http://127.0.0.1:8787/media/p/c1.mp4", "/media/p/c1.mp4"},
		{"https://h/x/media/y/media/p/c1.mp4", "/media/p/c1.mp4"},
		{"/media/p/c1.mp4", "/media/p/c1.mp4"},
		{"https://elsewhere.example.com/v.mp4", "https://elsewhere.example.com/v.mp4"},
		{"", ""},
	} {
		if got := relativeAddress(tc.old); got != tc.want {
			t.Errorf("relativeAddress(%q) = %q, want %q", tc.old, got, tc.want)
		}
	}
	if got := relativeKey("/any/where/uploads/u.bin", "uploads/u.bin"); got != "uploads/u.bin" {
		t.Errorf("relativeKey of an absolute path = %q", got)
	}
	if got := relativeKey("uploads/u.bin", "uploads/other.bin"); got != "uploads/u.bin" {
		t.Errorf("relativeKey of a key = %q, want it kept", got)
	}
}
