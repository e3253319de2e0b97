package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server/oldreleasetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// mediaQuery is the signature and expiry of a media address, which each
// read makes anew.
var mediaQuery = regexp.MustCompile(`(/media/[^"?]+)\?[^"]*`)

// TestMigrateCommandMovesThePreviousRelease: `clipperd migrate` of a data
// directory the previous release (4b64e35) wrote and was killed on, never
// opened by this release, into PostgreSQL and a MinIO bucket, with the
// master key given as CLIPPERD_MASTER_KEY. A server on the moved
// installation, given no dev key, answers each API read as the old release
// did to the old release's key, serves its clips' bytes through the links
// it handed out, and completes the project it was killed in.
func TestMigrateCommandMovesThePreviousRelease(t *testing.T) {
	toolexectest.RequireMedia(t)
	from, fx := oldreleasetest.Open(t)
	minioSrv := miniotest.Start(t)
	minioSrv.Env(t)
	toMedia := minioSrv.URL(minioSrv.NewBucket(t), "clipperd")
	_, master := masterkey.Generate()
	t.Setenv(masterkey.Env, master)
	database := storetest.PostgresURL(t)
	out, err := runMigrate(t, "--from", from, "--to-database", database, "--to-media", toMedia, "--quiet")
	if err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	t.Logf("migrate: %s", out)

	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Database: database,
		Media: toMedia, MasterKey: master, Now: fx.Clock(), Limits: quota.Limits{RateLimit: 100000}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	for path, want := range fx.Reads {
		got := mediaQuery.ReplaceAllString(strings.ReplaceAll(string(fetch(t, srv.URL()+path, fx.DevKey)), srv.URL(), "BASE"), "$1")
		if got, want = oldreleasetest.Comparable(t, path, got), oldreleasetest.Comparable(t, path, want); got != want {
			t.Errorf("GET %s after the move:\n%s\nthe old release answered:\n%s", path, got, want)
		}
	}
	for _, m := range fx.Media {
		sum := sha256.Sum256(fetch(t, srv.URL()+m.Path))
		if hex.EncodeToString(sum[:]) != m.Sha256 {
			t.Errorf("%s after the move: not the old release's bytes", m.Path)
		}
	}
	c, err := client.New(client.Config{BaseURL: srv.URL(), APIKey: fx.OtherKey, RequestsPerMinute: 6000})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	p, err := c.WaitForProject(ctx, fx.InFlightProject, client.WaitOptions{PollInterval: 200 * time.Millisecond, MaxPollInterval: time.Second})
	if err != nil || p.Stage != apitypes.StageComplete {
		t.Fatalf("the project killed at %s, after the move: %+v %v", fx.InFlightStage, p, err)
	}
}
