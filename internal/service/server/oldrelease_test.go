package server

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/migrate"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// oldRelease is testdata/release-4b64e35: answers.json, what clipperd at
// commit 4b64e35 (the release before issue 17) answered on the data
// directory of data.tar.gz, which it wrote and was killed on
// (scripts/oldrelease-fixture makes both).
const oldRelease = "testdata/release-4b64e35"

type oldReleaseFixture struct {
	DevKey, OtherKey             string
	TemplateID, PostAccountID    string
	UploadID                     string
	DoneProject, InFlightProject string
	InFlightStage                string
	CollectionID, ClipID, PostID string
	DueSchedule, LaterSchedule   string
	DueAt                        time.Time
	Reads                        map[string]string
	Media                        []struct{ Path, Sha256 string }
	Webhooks                     []struct{ Body, Signature, Salt string }
}

// openOldRelease extracts the old release's data directory into a new
// temporary directory and returns it with what that release answered.
func openOldRelease(t *testing.T) (string, oldReleaseFixture) {
	t.Helper()
	var fx oldReleaseFixture
	data, err := os.ReadFile(filepath.Join(oldRelease, "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := untar(filepath.Join(oldRelease, "data.tar.gz"), dir); err != nil {
		t.Fatal(err)
	}
	return dir, fx
}

// upgradeClock is the clock of the server started on the fixture: it
// starts a second after the old release's due schedule, as if this release
// replaced it at once, whatever day the test runs. On the real clock the
// fixture's media expire 30 days after it was made (storageExpireAt), and
// the janitor then rightly deletes them.
func upgradeClock(fx oldReleaseFixture) func() time.Time {
	start := time.Now()
	return func() time.Time { return fx.DueAt.Add(time.Second + time.Since(start)) }
}

// untar writes the gzip-compressed tar file into dir: directories,
// regular files and hard links (the old release links an upload to its
// projects' sources).
func untar(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path.Clean(h.Name)))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeLink:
			err = os.Link(filepath.Join(dir, filepath.FromSlash(path.Clean(h.Linkname))), target)
		case tar.TypeReg:
			err = writeFile(target, tr, h.FileInfo().Mode().Perm())
		default:
			err = errors.New("unexpected entry " + h.Name)
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(name string, r io.Reader, perm os.FileMode) error {
	out, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestPreviousReleaseDataDir starts this release on a data directory that
// the previous release (4b64e35) wrote and was killed on mid-pipeline:
// every API read answers as that release answered, the links it handed out
// and fresh ones serve the same bytes, its other API key still works, its
// post's files are where its record says, its due schedule fires and its
// later one can be cancelled, the killed project resumes to COMPLETE, the
// old upload makes a new project, and webhooks are still signed with the
// organization's first key, as the old release signed them.
func TestPreviousReleaseDataDir(t *testing.T) {
	dir, fx := openOldRelease(t)
	for _, h := range fx.Webhooks { // the fixture's own record: the old release signed with the org's first key, made by `keys create` before the dev key
		if outbound.Sign(fx.OtherKey, []byte(h.Body), h.Salt) != h.Signature {
			t.Fatalf("the old release's webhook %s is not signed with the first key", h.Body)
		}
	}
	srv := startServer(t, Config{DataDir: dir, APIKey: fx.DevKey, AllowPrivateWebhooks: true, Now: upgradeClock(fx)})
	c := newClient(t, srv, fx.DevKey)
	checkOldReleaseServed(t, srv, c, fx)

	// The post the old release published, where its record says.
	post, err := srv.store.GetPost(t.Context(), fx.PostID)
	if err != nil || post.Status != store.PostPublished {
		t.Fatalf("the old release's post: %+v %v, want it published", post, err)
	}
	checkPublishedFiles(t, dir, post)
	// The schedule due after the old release stopped fires here, once.
	waitUntil(t, "the old release's due schedule fired", func() bool {
		sc, err := srv.store.GetSchedule(t.Context(), fx.DueSchedule)
		if err != nil {
			t.Fatal(err)
		}
		return sc.Status == store.ScheduleFired
	})
	due, err := srv.store.GetSchedule(t.Context(), fx.DueSchedule)
	if err != nil {
		t.Fatal(err)
	}
	checkPublishedFiles(t, dir, publishedRecord(t, srv, due.PostID))
	if later, err := srv.store.GetSchedule(t.Context(), fx.LaterSchedule); err != nil || later.Status != store.SchedulePending {
		t.Errorf("the old release's schedule of 2099: %+v %v, want it pending", later, err)
	}
	cl, err := client.New(client.Config{BaseURL: srv.URL(), APIKey: fx.DevKey, RequestsPerMinute: 6000})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.DeletePublishSchedule(t.Context(), fx.LaterSchedule); err != nil {
		t.Errorf("cancel the old release's schedule of 2099: %v", err)
	}

	// A project of the old upload, with a webhook signed as before.
	receiver := webhooktest.New(t, 0)
	fresh := c.mustCreate(map[string]any{"videoUrl": fx.UploadID,
		"curationPref":      map[string]any{"range": map[string]any{"startSec": 0, "endSec": 12}, "clipDurations": [][]float64{{4, 10}}},
		"conclusionActions": []apitypes.ConclusionAction{{Type: apitypes.ActionWebhook, URL: receiver.URL + "/hook"}}})

	resumed := c.waitFor(fx.InFlightProject, pipelineTimeout, false, apitypes.StageComplete)
	if n := len(c.clips(fx.InFlightProject)); n == 0 {
		t.Errorf("the project killed at %s resumed with no clips (stallCount %v)", fx.InFlightStage, resumed.StallCount)
	}
	c.waitFor(fresh.ID, pipelineTimeout, false, apitypes.StageComplete)
	waitUntil(t, "the conclusion webhook of "+fresh.ID, func() bool { return len(receiver.Requests()) > 0 })
	hook := receiver.Requests()[0]
	payload := decode[apitypes.WebhookPayload](t, hook.Body)
	if payload.ProjectID != fresh.ID || payload.Stage != apitypes.StageComplete || !hook.SignedWith(fx.OtherKey) {
		t.Errorf("conclusion webhook %s (signed with the old org's first key: %v), want project %s COMPLETE",
			hook.Body, hook.SignedWith(fx.OtherKey), fresh.ID)
	}
}

// TestPreviousReleaseDataDirMigratedToPostgresAndMinIO moves the old
// release's data directory, never opened by this release, into PostgreSQL
// and a MinIO bucket with migrate (as `clipperd migrate` does, with a
// master key given as CLIPPERD_MASTER_KEY): the moved installation answers
// as the old release did and the killed project completes there.
func TestPreviousReleaseDataDirMigratedToPostgresAndMinIO(t *testing.T) {
	dir, fx := openOldRelease(t)
	minioSrv := miniotest.Start(t)
	minioSrv.Env(t)
	toMedia := minioSrv.URL(minioSrv.NewBucket(t), "clipperd")
	bucket, err := OpenMedia(t.Context(), toMedia, nil)
	if err != nil {
		t.Fatal(err)
	}
	master, masterText := masterkey.Generate()
	cfg := migrate.Config{From: dir, ToDatabase: storetestURL(t), ToMedia: bucket, MasterKey: master}
	report, err := migrate.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("moved %d rows, %d files (%d bytes)", report.Rows.Total(), report.Media.Copied, report.Media.CopiedBytes)

	srv := startServer(t, Config{Database: cfg.ToDatabase, Media: toMedia, APIKey: fx.DevKey, MasterKey: masterText, Now: upgradeClock(fx)})
	c := newClient(t, srv, fx.DevKey)
	checkOldReleaseServed(t, srv, c, fx)
	if post, err := srv.store.GetPost(t.Context(), fx.PostID); err != nil || post.Status != store.PostPublished {
		t.Errorf("the old release's post after the move: %+v %v", post, err)
	}
	resumed := c.waitFor(fx.InFlightProject, pipelineTimeout, false, apitypes.StageComplete)
	if n := len(c.clips(fx.InFlightProject)); n == 0 {
		t.Errorf("the project killed at %s resumed with no clips (stallCount %v)", fx.InFlightStage, resumed.StallCount)
	}
}

// checkOldReleaseServed compares srv's answers with the old release's:
// each API read, the bytes of each clip through the link the old release
// handed out and through a fresh one, and its other API key.
func checkOldReleaseServed(t *testing.T, srv *Server, c *apiClient, fx oldReleaseFixture) {
	t.Helper()
	if len(fx.Reads) == 0 || len(fx.Media) == 0 {
		t.Fatal("the fixture records no reads or media")
	}
	for p, want := range fx.Reads {
		got := c.read(p, srv.URL())
		if strings.HasPrefix(p, "/api/brand-templates") {
			// The presets are code, changed on purpose since (e862ce0:
			// Gameplay sets the game layout only); the org's own are data.
			got, want = customTemplates(t, got), customTemplates(t, want)
		}
		if got != want {
			t.Errorf("GET %s:\n%s\nthe old release answered:\n%s", p, got, want)
		}
	}
	want := map[string]string{}
	for _, m := range fx.Media {
		got := get(t, srv.URL()+m.Path) // the old release's signature still holds
		if sha256Hex(got) != m.Sha256 {
			t.Errorf("%s: %d bytes unlike the old release's", m.Path, len(got))
		}
		want[signedQuery.ReplaceAllString(m.Path, "$1")] = m.Sha256
	}
	for _, clip := range c.clips(fx.DoneProject) {
		for _, uri := range []string{clip.URIForExport, clip.URIForPreview} {
			rel := signedQuery.ReplaceAllString(uri[len(srv.URL()):], "$1")
			if sum, ok := want[rel]; !ok || sha256Hex(get(t, uri)) != sum {
				t.Errorf("%s: not the old release's bytes (known: %v)", rel, ok)
			}
		}
	}
	if resp, data := newClient(t, srv, fx.OtherKey).do(http.MethodGet, "/api/clip-projects/"+fx.DoneProject, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the old release's other API key: %d %s", resp.StatusCode, data)
	}
}

// customTemplates is the org's own templates of a brand-templates answer.
func customTemplates(t *testing.T, answer string) string {
	t.Helper()
	var own []json.RawMessage
	for _, tpl := range decode[[]json.RawMessage](t, []byte(answer)) {
		if decode[struct{ Type string }](t, tpl).Type == "custom" {
			own = append(own, tpl)
		}
	}
	if len(own) == 0 {
		t.Fatalf("no template of the org in %s", answer)
	}
	data, err := json.Marshal(own)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkPublishedFiles checks post.json and clip.mp4 of a post published to
// the dir destination, under the data directory at its record's Location.
func checkPublishedFiles(t *testing.T, dir string, post *store.Post) {
	t.Helper()
	folder := filepath.Join(dir, filepath.FromSlash(post.Location))
	doc, err := os.ReadFile(filepath.Join(folder, "post.json"))
	if err != nil {
		t.Fatalf("post %s: %v", post.ID, err)
	}
	if got := decode[apitypes.PublishedPost](t, doc); got.PostID != post.ID || got.PostAccountID != post.PostAccountID {
		t.Errorf("post.json of %s: %s", post.ID, doc)
	}
	clip, err := os.ReadFile(filepath.Join(folder, "clip.mp4"))
	if err != nil || len(clip) == 0 || !bytes.HasPrefix(clip[4:], []byte("ftyp")) {
		t.Errorf("clip.mp4 of post %s: %d bytes, %v; want an MP4", post.ID, len(clip), err)
	}
}
