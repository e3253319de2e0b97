package janitor

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// clock is a fake clock the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

type env struct {
	t     *testing.T
	st    *store.Store
	dir   string
	clock *clock
	j     *Janitor
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	c := &clock{t: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
	st.SetClock(c.now) // records are stamped by the same fake clock
	media, err := blob.NewDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	j, err := New(Config{Store: st, Media: media, UploadExpiry: 168 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, st: st, dir: dir, clock: c, j: j}
}

// mediaApart gives the env a janitor whose media are in a directory of
// their own (a bucket's stand-in) while uploads arrive in the data
// directory, as on a node with --media elsewhere; now, when given, is the
// janitor's clock. It returns the media store.
func (e *env) mediaApart(now func() time.Time) blob.Store {
	e.t.Helper()
	media, err := blob.NewDir(e.t.TempDir(), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	uploads, err := blob.NewDir(e.dir, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if e.j, err = New(Config{Store: e.st, Media: media, Uploads: uploads, UploadExpiry: 168 * time.Hour, Now: now}); err != nil {
		e.t.Fatal(err)
	}
	return media
}

// upload stores an upload of n bytes with its file, complete or not.
func (e *env) upload(n int, complete bool) *store.Upload {
	e.t.Helper()
	u := &store.Upload{ID: store.NewID("up_"), OrgID: "org", UserID: "user", Total: int64(n), Received: int64(n), Complete: complete}
	u.Key = blob.UploadKey(u.ID)
	writeFile(e.t, e.path(u), n)
	if err := e.st.SaveUpload(context.Background(), u); err != nil {
		e.t.Fatal(err)
	}
	return u
}

// project stores a COMPLETE project made from the upload sourceID ("" for
// a link) with a clip and n bytes of media; it expires 30 days from now.
func (e *env) project(sourceID string, n int) *store.Project {
	e.t.Helper()
	req := &apitypes.CreateProjectRequest{VideoURL: sourceID, CurationPref: &apitypes.CurationPref{}}
	p := store.NewProject(store.Key{OrgID: "org", UserID: "user"}, req, apitypes.PlatformUploaded, sourceID, e.clock.now())
	if err := e.st.CreateProject(context.Background(), p, store.Admission{}); err != nil {
		e.t.Fatal(err)
	}
	writeFile(e.t, filepath.Join(e.dir, "media", p.ID, "clip.mp4"), n)
	if _, err := e.st.MutateProject(context.Background(), p.ID, func(p *store.Project) error {
		p.Stage, p.StorageSize = apitypes.StageComplete, int64(n)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	err := e.st.ReplaceClips(context.Background(), p.ID, "org", []store.Clip{
		{ID: p.ID + ".c1", CurationID: "c1", URIForExport: "http://x/media/" + p.ID + "/clip.mp4", StorageUsed: int64(n)},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) pass() Swept {
	e.t.Helper()
	sw, err := e.j.Pass(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return sw
}

func writeFile(t *testing.T, path string, n int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, n), 0o600); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Unfinished uploads and complete uploads no project uses are deleted,
// record and file, once older than the expiry, not before; an upload a
// project was made from stays while the project keeps its media.
func TestUploadsExpireWhenUnfinishedOrUnused(t *testing.T) {
	e := newEnv(t)
	unfinished := e.upload(10, false)
	unused := e.upload(20, true)
	used := e.upload(30, true)
	e.project(used.ID, 5)

	e.clock.advance(167 * time.Hour)
	if sw := e.pass(); sw.Uploads != 0 {
		t.Fatalf("a pass before the expiry deleted %d uploads", sw.Uploads)
	}
	e.clock.advance(2 * time.Hour)
	sw := e.pass()
	if sw.Uploads != 2 || sw.Bytes != 30 {
		t.Errorf("swept %+v, want 2 uploads of 30 bytes", sw)
	}
	for _, u := range []*store.Upload{unfinished, unused} {
		if _, err := e.st.GetUpload(context.Background(), u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("expired upload %s still recorded: %v", u.ID, err)
		}
		if exists(e.path(u)) {
			t.Errorf("file of expired upload %s still there", u.ID)
		}
	}
	if _, err := e.st.GetUpload(context.Background(), used.ID); err != nil || !exists(e.path(used)) {
		t.Errorf("the upload a project uses was deleted: %v", err)
	}
	if sw := e.pass(); sw != (Swept{}) {
		t.Errorf("a second pass swept %+v, want nothing", sw)
	}
}

// At storageExpireAt a finished project's media and the upload it was made
// from are deleted; the project stays readable with storageStatus EXPIRED,
// no storageSize, and clips without addresses.
func TestProjectMediaExpire(t *testing.T) {
	e := newEnv(t)
	up := e.upload(100, true)
	p := e.project(up.ID, 400)
	later := e.project("", 50)
	media := filepath.Join(e.dir, "media", p.ID)

	e.clock.advance(29 * 24 * time.Hour)
	if sw := e.pass(); sw.Projects != 0 || !exists(media) {
		t.Fatalf("a pass before storageExpireAt swept %+v", sw)
	}
	e.clock.advance(24*time.Hour + time.Second)
	// Only p has expired: move the other one's expiry a day on.
	if _, err := e.st.MutateProject(context.Background(), later.ID, func(p *store.Project) error {
		p.StorageExpireAt = e.clock.now().Add(24 * time.Hour)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sw := e.pass()
	if sw.Projects != 1 || sw.Bytes != 500 {
		t.Errorf("swept %+v, want 1 project and 500 bytes (media and its upload)", sw)
	}
	if exists(media) || exists(e.path(up)) {
		t.Error("media or upload of the expired project still on disk")
	}
	got, err := e.st.GetProject(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if api := got.API(); api.StorageStatus != store.StorageExpired || api.StorageSize != 0 || api.Stage != apitypes.StageComplete {
		t.Errorf("expired project reports storageStatus %q storageSize %d stage %s", api.StorageStatus, api.StorageSize, api.Stage)
	}
	clips, err := e.st.ListClips(context.Background(), p.ID, 0, 10)
	if err != nil || len(clips) != 1 || clips[0].URIForExport != "" {
		t.Errorf("clips of the expired project %+v, %v; want the clip without its address", clips, err)
	}
	if !exists(filepath.Join(e.dir, "media", later.ID, "clip.mp4")) {
		t.Error("media of a project not yet expired were deleted")
	}
}

// A project still in work keeps its media past storageExpireAt until it
// ends.
func TestProjectInWorkKeepsMedia(t *testing.T) {
	e := newEnv(t)
	p := e.project("", 10)
	if _, err := e.st.MutateProject(context.Background(), p.ID, func(p *store.Project) error {
		p.Stage = apitypes.StageRender
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(31 * 24 * time.Hour)
	if sw := e.pass(); sw.Projects != 0 || !exists(filepath.Join(e.dir, "media", p.ID)) {
		t.Errorf("a project in RENDER lost its media: %+v", sw)
	}
}

// Start runs a pass at once; Stop waits for the loop.
func TestStartRunsAPass(t *testing.T) {
	e := newEnv(t)
	u := e.upload(10, false)
	e.clock.advance(200 * time.Hour)
	e.j.Start(context.Background())
	storetest.Eventually(t, "the first pass to delete the expired upload", func() bool { return !exists(e.path(u)) })
	e.j.Stop()
}

// path is the file of u's bytes in the data directory.
func (e *env) path(u *store.Upload) string {
	return filepath.Join(e.dir, filepath.FromSlash(u.Key))
}

// With the media elsewhere (a bucket's server; here a second directory),
// an expired incomplete upload is removed from the data directory where it
// was being written, and an expired complete one from the media.
func TestExpiredUploadsLeaveBothStores(t *testing.T) {
	e := newEnv(t)
	media := e.mediaApart(nil)
	unfinished := e.upload(10, false) // written in the data directory
	landed := &store.Upload{ID: store.NewID("up_"), OrgID: "org", UserID: "user", Total: 20, Received: 20, Complete: true}
	landed.Key = blob.UploadKey(landed.ID)
	if err := blob.Write(t.Context(), media, landed.Key, bytes.NewReader(make([]byte, 20))); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SaveUpload(t.Context(), landed); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(169 * time.Hour)
	if sw := e.pass(); sw.Uploads != 2 || sw.Bytes != 30 {
		t.Errorf("swept %+v, want 2 uploads of 30 bytes", sw)
	}
	if exists(e.path(unfinished)) {
		t.Error("the incomplete upload's file stays in the data directory")
	}
	if _, err := media.Stat(t.Context(), landed.Key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("the complete upload stays in the media: %v", err)
	}
}

// A project's expiry removes the clips its posts published to the "dir"
// destination (a hard link keeps the render's bytes on disk while it
// lives), keeps each post.json, the record of the publication, and leaves
// another project's posts alone.
func TestProjectExpiryRemovesItsPostsClips(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p := e.project("", 400)
	other := e.project("", 50)
	acct, err := e.st.ConnectSocialAccountTo(ctx, "org", apitypes.SocialAccount{Platform: "YOUTUBE", ExtUserName: "me"}, store.PublishToDir)
	if err != nil {
		t.Fatal(err)
	}
	published := func(project *store.Project) (clip, doc string) {
		t.Helper()
		post, err := e.st.CreatePost(ctx, "org", store.PostContent{ProjectID: project.ID, ClipID: "c1", PostAccountID: acct.PostAccountID}, store.PostLimits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(e.dir, "published", acct.PostAccountID, post.ID)
		writeFile(t, filepath.Join(dir, "post.json"), 10)
		clip = filepath.Join(dir, "clip.mp4")
		if err := os.Link(filepath.Join(e.dir, "media", project.ID, "clip.mp4"), clip); err != nil {
			t.Fatal(err)
		}
		return clip, filepath.Join(dir, "post.json")
	}
	clip, doc := published(p)
	otherClip, _ := published(other)
	if _, err := e.st.MutateProject(ctx, other.ID, func(p *store.Project) error {
		p.StorageExpireAt = e.clock.now().Add(60 * 24 * time.Hour)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	e.clock.advance(31 * 24 * time.Hour)
	sw := e.pass()
	if sw.Projects != 1 || sw.Bytes != 400 {
		t.Errorf("swept %+v, want 1 project and 400 bytes (its media; its post's link to them frees nothing more)", sw)
	}
	if exists(clip) || !exists(doc) {
		t.Errorf("after expiry: clip.mp4 there %v, post.json there %v; want only post.json", exists(clip), exists(doc))
	}
	if !exists(otherClip) {
		t.Error("the clip of another project's post was removed")
	}
}

// An expired upload's parts (the chunks a bucket holds while an upload
// arrives) go with it, whichever node wrote them; and a node's own disk
// keeps no upload file past the expiry, though another node's janitor
// deleted the record (here: no record at all).
func TestExpiredUploadsLeaveNoParts(t *testing.T) {
	e := newEnv(t)
	media := e.mediaApart(func() time.Time { return e.clock.now().Add(169 * time.Hour) })
	abandoned := &store.Upload{ID: store.NewID("up_"), OrgID: "org", UserID: "user", SessionID: "ses_a", Total: 30, Received: 20}
	abandoned.Key = blob.UploadKey(abandoned.ID)
	if err := e.st.SaveUpload(t.Context(), abandoned); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"ses_a/00000000000000000000-aa", "ses_a/00000000000000000010-bb", "ses_old/00000000000000000000-cc"} {
		if err := blob.Write(t.Context(), media, blob.UploadPartsPrefix(abandoned.ID)+key, bytes.NewReader(make([]byte, 10))); err != nil {
			t.Fatal(err)
		}
	}
	// Its record went with another node's pass; last written 8 days ago.
	leftover := filepath.Join(e.dir, "uploads", "up_elsewhere.bin")
	writeFile(t, leftover, 7)
	old := time.Now().Add(-192 * time.Hour)
	if err := os.Chtimes(leftover, old, old); err != nil {
		t.Fatal(err)
	}
	if sw := e.pass(); sw.Uploads != 1 || sw.Bytes != 37 {
		t.Errorf("swept %+v, want 1 upload and 37 bytes (3 parts, the leftover file)", sw)
	}
	if left, err := media.List(t.Context(), blob.UploadsPrefix); err != nil || len(left) != 0 {
		t.Errorf("the media keep %+v (%v) of the expired upload", left, err)
	}
	if exists(leftover) {
		t.Error("the node's leftover upload file stays")
	}
}

// A file of an upload still arriving on this node's disk (--media in
// another directory) stays: it was written within the expiry.
func TestLocalUploadInProgressStays(t *testing.T) {
	e := newEnv(t)
	e.mediaApart(nil)
	u := e.upload(10, false)
	if sw := e.pass(); sw.Uploads != 0 || sw.Bytes != 0 {
		t.Errorf("swept %+v, want nothing", sw)
	}
	if !exists(e.path(u)) {
		t.Error("an upload in progress lost its file")
	}
}
