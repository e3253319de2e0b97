package server

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/migrate"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// TestMigrateSingleBoxToPostgresAndMinIO builds a single box (SQLite and
// its data directory) through the API: an upload, a COMPLETE project with
// clips, a collection, a post, a schedule, a copy job, a censor job, an API
// key, and a project stopped mid-pipeline. clipperd migrate refuses it
// while it runs; stopped, it is moved into PostgreSQL and a MinIO bucket.
// A server on the moved installation, at another address, answers every
// read as the original did (same ids, same clips, the media byte for byte,
// links handed out before the move), and the project in flight reaches
// COMPLETE there.
func TestMigrateSingleBoxToPostgresAndMinIO(t *testing.T) {
	video := sourceVideo(t)
	from := filepath.Join(t.TempDir(), "single-box")
	srv1, err := Start(t.Context(), Config{DataDir: from, ShutdownGrace: 50 * time.Millisecond, Listen: "127.0.0.1:0",
		APIKey: devKey, Limits: quota.Limits{RateLimit: 100000}, AllowPrivateWebhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv1.Close() }) // a no-op after closeMidway's
	c1 := newClient(t, srv1, devKey)
	key, err := srv1.store.CreateKey(t.Context(), DevOrgID, "another-user")
	if err != nil {
		t.Fatal(err)
	}

	projects, clips := c1.finishedProjects(video, [2]int{0, 12})
	done, clip := projects[0], clips[0]
	col := c1.mustCreateCollection("moved")
	if resp, data := c1.do(http.MethodPost, "/api/collection-contents", apitypes.CollectionContent{CollectionID: col.CollectionID, ContentID: clip.ID}); resp.StatusCode != http.StatusOK {
		t.Fatalf("add to collection: %d %s", resp.StatusCode, data)
	}
	account := connect(t, srv1, DevOrgID, "YOUTUBE", "")
	cl := devAPIClient(t, srv1)
	postID, err := cl.CreatePostTask(t.Context(), postBody(clip.ProjectID, clip.CurationID, account))
	if err != nil {
		t.Fatal(err)
	}
	publishedRecord(t, srv1, postID)
	scheduleID, err := cl.CreatePublishSchedule(t.Context(), scheduleBody(clip.ProjectID, clip.CurationID, account, time.Now().Add(30*24*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	copyID, err := cl.CreateSocialCopyJob(t.Context(), apitypes.SocialCopyJobRequest{ProjectID: clip.ProjectID, ClipID: clip.CurationID,
		PostAccountID: account, Prompt: "formal"})
	if err != nil {
		t.Fatal(err)
	}
	copyJobDone(t, cl, copyID)
	// A post to a receiver that is down: pending, its job retrying, when
	// the single box stops.
	receiver := newFlakyReceiver(t)
	hook, err := srv1.store.ConnectSocialAccountTo(t.Context(), DevOrgID, apitypes.SocialAccount{Platform: "YOUTUBE", ExtUserName: "hook"},
		"webhook:"+receiver.URL)
	if err != nil {
		t.Fatal(err)
	}
	pendingID, err := cl.CreatePostTask(t.Context(), postBody(clip.ProjectID, clip.CurationID, hook.PostAccountID))
	if err != nil {
		t.Fatal(err)
	}
	storetest.Eventually(t, "a refused attempt of post "+pendingID, func() bool { return receiver.refused.Load() > 0 })
	censorID := c1.finishedCensorJob(clip.ProjectID, clip.CurationID)

	// What the single box answers, and its media, before the move.
	reads := []string{
		"/api/clip-projects/" + done.ID,
		"/api/exportable-clips?q=findByProjectId&projectId=" + done.ID,
		"/api/exportable-clips?q=findByCollectionId&collectionId=" + col.CollectionID,
		"/api/collections?q=mine",
		"/api/collections?q=findByContentId&contentId=" + clip.ID,
		"/api/social-accounts?q=mine",
		"/api/brand-templates?q=mine",
		"/api/social-copy-jobs/" + copyID,
		"/api/censor-jobs/" + censorID,
	}
	before := map[string]string{}
	for _, path := range reads {
		before[path] = c1.read(path, srv1.URL())
	}
	media := map[string][]byte{}
	for _, c := range c1.clips(done.ID) {
		media[c.URIForExport] = get(t, c.URIForExport)
		media[c.URIForPreview] = get(t, c.URIForPreview)
	}
	post, err := srv1.store.GetPost(t.Context(), postID)
	if err != nil {
		t.Fatal(err)
	}
	schedule, err := srv1.store.GetSchedule(t.Context(), scheduleID)
	if err != nil {
		t.Fatal(err)
	}

	minioSrv := miniotest.Start(t)
	minioSrv.Env(t)
	toMedia := minioSrv.URL(minioSrv.NewBucket(t), "clipperd")
	bucket, err := OpenMedia(t.Context(), toMedia, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The single box's master key: its secrets move sealed, so the
	// scale-out node starts with the same key file (the default one, which
	// the single box found without a flag).
	master, keyFile, err := masterkey.Resolve("", "", from)
	if err != nil {
		t.Fatal(err)
	}
	cfg := migrate.Config{From: from, ToDatabase: storetestURL(t), ToMedia: bucket, MasterKey: master}
	if _, err := migrate.Run(t.Context(), cfg); !errors.Is(err, migrate.ErrSourceInUse) {
		t.Fatalf("migrate while the single box runs: %v, want ErrSourceInUse", err)
	}

	inFlight := c1.mustCreate(map[string]any{"videoUrl": done.SourceID,
		"curationPref": map[string]any{"range": map[string]any{"startSec": 0, "endSec": 12}, "clipDurations": [][]float64{{4, 10}}}})
	closeMidway(t, srv1, c1, inFlight.ID)

	report, err := migrate.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("moved %d rows in %s, %d files (%d bytes) in %s", report.Rows.Total(), report.DatabaseTime,
		report.Media.Copied, report.Media.CopiedBytes, report.MediaTime)
	if report.Media.Copied == 0 || report.Rows.Total() == 0 {
		t.Fatalf("migrate moved nothing: %+v", report)
	}
	if _, err := migrate.Run(t.Context(), cfg); !errors.Is(err, migrate.ErrTargetNotEmpty) {
		t.Fatalf("migrate into the moved installation again: %v, want ErrTargetNotEmpty", err)
	}

	// The scale-out node: another data directory and address.
	receiver.up.Store(true)
	srv2 := startServer(t, Config{Database: cfg.ToDatabase, Media: toMedia, AllowPrivateWebhooks: true, MasterKeyFile: keyFile})
	if srv2.store.Engine() != store.EnginePostgres {
		t.Fatalf("the moved server runs on %s", srv2.store.Engine())
	}
	c2 := newClient(t, srv2, devKey)
	for _, path := range reads {
		if got := c2.read(path, srv2.URL()); got != before[path] {
			t.Errorf("GET %s after the move:\n%s\nbefore:\n%s", path, got, before[path])
		}
	}
	for _, c := range c2.clips(done.ID) {
		for _, uri := range []string{c.URIForExport, c.URIForPreview} {
			if !bytes.HasPrefix([]byte(uri), []byte(srv2.URL()+"/media/")) {
				t.Errorf("media address %s is not under the moved server's %s", uri, srv2.URL())
			}
		}
	}
	for uri, want := range media {
		// A link handed out by the single box, at the new address.
		old, _ := url.Parse(uri)
		if got := get(t, srv2.URL()+old.Path+"?"+old.RawQuery); !bytes.Equal(got, want) {
			t.Errorf("%s after the move: %d bytes, before %d", old.Path, len(got), len(want))
		}
	}
	if resp, data := newClient(t, srv2, key).do(http.MethodGet, "/api/clip-projects/"+done.ID, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the single box's other API key after the move: %d %s", resp.StatusCode, data)
	}
	// The post's copy of its clip shared the clip's bytes in the directory;
	// in the bucket it is an object of its own, counted in its org's storage.
	// (Its own bytes: the censor job above may have rewritten the clip since.)
	clipInfo, err := bucket.Stat(t.Context(), blob.PublishedClipKey(post.PostAccountID, post.ID))
	if err != nil {
		t.Fatal(err)
	}
	if post.StorageSize != 0 {
		t.Errorf("the single box's post counts %d bytes, want 0 (a hard link)", post.StorageSize)
	}
	moved := *post
	moved.StorageSize = clipInfo.Size
	if got, err := srv2.store.GetPost(t.Context(), postID); err != nil || *got != moved {
		t.Errorf("post after the move: %+v %v\nwant: %+v", got, err, moved)
	}
	if got, err := srv2.store.GetSchedule(t.Context(), scheduleID); err != nil || *got != *schedule {
		t.Errorf("schedule after the move: %+v %v\nbefore: %+v", got, err, schedule)
	}
	if err := devAPIClient(t, srv2).DeletePublishSchedule(t.Context(), scheduleID); err != nil {
		t.Errorf("cancel the moved schedule: %v", err)
	}

	// The post pending at the move is published once, by the new server.
	if p := publishedRecord(t, srv2, pendingID); p.Location != receiver.URL {
		t.Errorf("the pending post went to %q, want the receiver", p.Location)
	}
	if n := receiver.accepted.Load(); n != 1 {
		t.Errorf("the receiver accepted the pending post %d times, want once", n)
	}

	resumed := c2.waitFor(inFlight.ID, pipelineTimeout, true, apitypes.StageComplete)
	if n := len(c2.clips(inFlight.ID)); n == 0 {
		t.Errorf("the in-flight project resumed with no clips (stallCount %v)", resumed.StallCount)
	}
}

// signedQuery is the signature and expiry of a media address, which each
// read makes anew.
var signedQuery = regexp.MustCompile(`(/media/[^"?]+)\?[^"]*`)

// read GETs path and returns the answer with the server's address (base)
// and the media addresses' signatures taken out, what stays the same when
// the same installation is served elsewhere.
func (c *apiClient) read(path, base string) string {
	c.t.Helper()
	resp, data := c.do(http.MethodGet, path, nil)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, data)
	}
	data = bytes.ReplaceAll(data, []byte(base), []byte("BASE"))
	return string(signedQuery.ReplaceAll(data, []byte("$1")))
}

// finishedCensorJob runs a censor job of the clip to its end, CONCLUDED or
// FAILED (without a recogniser there is no transcript to censor), and
// returns its id.
func (c *apiClient) finishedCensorJob(projectID, clipID string) string {
	c.t.Helper()
	resp, body := c.do(http.MethodPost, "/api/censor-jobs", apitypes.CensorJobRequest{ProjectID: projectID, ClipID: clipID})
	if resp.StatusCode != http.StatusCreated {
		c.t.Fatalf("create censor job: %d %s", resp.StatusCode, body)
	}
	id := decode[apitypes.CensorJob](c.t, body).JobID
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		_, body := c.do(http.MethodGet, "/api/censor-jobs/"+id, nil)
		if st := decode[apitypes.CensorJobStatus](c.t, body).Status; st == apitypes.CensorConcluded || st == apitypes.CensorFailed {
			return id
		}
	}
	c.t.Fatal("censor job did not end in a minute")
	return ""
}

// flakyReceiver is a webhook destination that refuses every request (503)
// until up is set, then accepts them (204), counting both.
type flakyReceiver struct {
	*httptest.Server
	up                atomic.Bool
	refused, accepted atomic.Int64
}

func newFlakyReceiver(t *testing.T) *flakyReceiver {
	r := &flakyReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !r.up.Load() {
			r.refused.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		r.accepted.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}
