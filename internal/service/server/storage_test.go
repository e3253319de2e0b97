package server

import (
	"net/http"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// The janitor the server runs deletes a finished project's media once its
// storageExpireAt has passed (the clock moved past it, no sleeping for a
// month): the project reports storageStatus EXPIRED and no storageSize, its
// clips no longer carry addresses and the old address serves nothing; an
// upload no project used is gone as well.
func TestJanitorExpiresProjectMedia(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	srv := startServer(t, Config{Now: clock.Now, JanitorPeriod: 20 * time.Millisecond})
	c := newClient(t, srv, devKey)
	projects, clips := c.finishedProjects(sourceVideo(t), [2]int{0, 12})
	p, clip := projects[0], clips[0]
	if p.StorageStatus != store.StorageTemp {
		t.Fatalf("storageStatus %q of a new project, want %s", p.StorageStatus, store.StorageTemp)
	}
	if resp, _ := c.do(http.MethodGet, clip.URIForExport, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("clip before expiry: %d", resp.StatusCode)
	}
	unused := c.startSession(c.uploadLink().URL)

	expireAt, err := time.Parse(time.RFC3339, c.project(p.ID).StorageExpireAt)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(expireAt.Sub(clock.Now()) + time.Second)
	var got apitypes.Project
	storetest.Eventually(t, "storageStatus "+string(store.StorageExpired)+" after storageExpireAt", func() bool {
		got = c.project(p.ID)
		return got.StorageStatus == store.StorageExpired
	})
	if got.StorageSize != 0 || got.Stage != apitypes.StageComplete {
		t.Errorf("expired project: storageSize %d stage %s, want 0 and COMPLETE", got.StorageSize, got.Stage)
	}
	for _, cl := range c.clips(p.ID) {
		if cl.URIForExport != "" || cl.URIForPreview != "" {
			t.Errorf("clip %s of an expired project still has addresses %q %q", cl.ID, cl.URIForExport, cl.URIForPreview)
		}
	}
	// The address was signed for 7 days, so a month later it is refused
	// as expired (403) before the missing file (404) matters: either way
	// nothing is served.
	if resp, _ := c.do(http.MethodGet, clip.URIForExport, nil); resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusForbidden {
		t.Errorf("old clip address after expiry: %d, want 403 or 404", resp.StatusCode)
	}
	if resp, body := c.do(http.MethodPut, unused, nil, "Content-Range", "bytes */10"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("session of an upload unused for a month: %d %s, want 404", resp.StatusCode, body)
	}
}
