package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server/oldreleasetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

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
	t.Parallel()
	dir, fx := oldreleasetest.Open(t)
	// The fixture's own record: the old release signed its webhooks with the
	// organization's first key, made by `keys create` before the dev key.
	for _, h := range fx.Webhooks {
		if outbound.Sign(fx.OtherKey, []byte(h.Body), h.Salt) != h.Signature {
			t.Fatalf("the old release's webhook %s is not signed with the first key", h.Body)
		}
	}
	srv := startServer(t, Config{DataDir: dir, APIKey: fx.DevKey, AllowPrivateWebhooks: true, Now: fx.Clock()})
	c := newClient(t, srv, fx.DevKey)
	checkOldReleaseServed(t, srv, c, fx)

	// The post the old release published, where its record says.
	post, err := srv.store.GetPost(t.Context(), fx.PostID)
	if err != nil || post.Status != store.PostPublished {
		t.Fatalf("the old release's post: %+v %v, want it published", post, err)
	}
	checkPublishedFiles(t, dir, post)
	// The schedule due after the old release stopped fires here, once.
	storetest.Eventually(t, "the old release's due schedule fired", func() bool {
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

	// The post and the conclusion delivery the old release was still
	// trying are tried again here, and stay pending (nothing answers).
	storetest.Eventually(t, "the old release's pending post tried again", func() bool {
		p, err := srv.store.GetPost(t.Context(), fx.PendingPost)
		if err != nil || p.Status != store.PostPending {
			t.Fatalf("the old release's pending post: %+v %v", p, err)
		}
		return p.Attempts > fx.PendingPostAttempts
	})
	storetest.Eventually(t, "the old release's pending delivery tried again", func() bool {
		deliveries, err := srv.store.ProjectDeliveries(t.Context(), fx.DoneProject)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range deliveries {
			if d.Target == fx.DeadAddress+"/hook" {
				if d.Status != store.DeliveryPending {
					t.Fatalf("the old release's pending delivery: %+v", d)
				}
				return d.Attempts > fx.PendingDeliveryAttempts
			}
		}
		t.Fatalf("no delivery to %s/hook among %+v", fx.DeadAddress, deliveries)
		return false
	})

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
	storetest.Eventually(t, "the conclusion webhook of "+fresh.ID, func() bool { return len(receiver.Requests()) > 0 })
	hook := receiver.Requests()[0]
	payload := decode[apitypes.WebhookPayload](t, hook.Body)
	if payload.ProjectID != fresh.ID || payload.Stage != apitypes.StageComplete || !hook.SignedWith(fx.OtherKey) {
		t.Errorf("conclusion webhook %s (signed with the old org's first key: %v), want project %s COMPLETE",
			hook.Body, hook.SignedWith(fx.OtherKey), fresh.ID)
	}
}

// checkOldReleaseServed compares srv's answers with the old release's:
// each API read, the bytes of each clip through the link the old release
// handed out and through a fresh one, and its other API key.
func checkOldReleaseServed(t *testing.T, srv *Server, c *apiClient, fx oldreleasetest.Fixture) {
	t.Helper()
	if len(fx.Reads) == 0 || len(fx.Media) == 0 {
		t.Fatal("the fixture records no reads or media")
	}
	for p, want := range fx.Reads {
		got := oldreleasetest.Comparable(t, p, c.read(p, srv.URL()))
		if want = oldreleasetest.Comparable(t, p, want); got != want {
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
	if err != nil || len(clip) < 8 || !bytes.Equal(clip[4:8], []byte("ftyp")) {
		t.Errorf("clip.mp4 of post %s: %d bytes, %v; want an MP4", post.ID, len(clip), err)
	}
}
