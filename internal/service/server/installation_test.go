package server

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/install"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server/oldreleasetest"
)

// TestPreviousReleaseAdoptsItsMedia: the previous release's data directory
// records no installation; this release's first start adopts its media
// (the id in the database, the marker in DATA/installation/), logged at
// INFO; a later start with other media is refused naming both, and a
// start with its own media passes without adopting again.
func TestPreviousReleaseAdoptsItsMedia(t *testing.T) {
	t.Parallel()
	dir, fx := oldreleasetest.Open(t)
	start := func(media string, log *syncBuffer) (*Server, error) {
		return Start(t.Context(), Config{DataDir: dir, Media: media, Listen: "127.0.0.1:0", APIKey: fx.DevKey, Now: fx.Clock(),
			APIOnly: true, Logger: slog.New(slog.NewTextHandler(log, nil))})
	}
	var first syncBuffer
	srv, err := start("", &first)
	if err != nil {
		t.Fatal(err)
	}
	in, err := srv.store.Installation(t.Context())
	if err != nil || !in.Marked || in.Media != dir {
		t.Errorf("after the first start: %+v %v; want an installation marked at %s", in, err, dir)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first.String(), "level=INFO") || !strings.Contains(first.String(), "made by an older release, adopts the media") {
		t.Errorf("the adoption was not logged at INFO:\n%s", first.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "installation", "marker.json")); err != nil || !strings.Contains(string(b), in.ID) {
		t.Errorf("marker: %q %v; want it to name %s", b, err, in.ID)
	}

	other := t.TempDir()
	var refused syncBuffer
	if _, err := start(other, &refused); !errors.Is(err, install.ErrNoMarker) || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), dir) {
		t.Errorf("a start with other media: %v; want ErrNoMarker naming %s and %s", err, other, dir)
	}

	var again syncBuffer
	srv, err = start(dir, &again)
	if err != nil {
		t.Fatalf("a start with its own media: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(again.String(), "older release") || strings.Contains(again.String(), "installation: new") {
		t.Errorf("the second start adopted again:\n%s", again.String())
	}
}
