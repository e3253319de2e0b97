// Package oldreleasetest holds a data directory written by the previous
// release of clipperd (commit 4b64e35, before issue 17) and what that
// release answered on it, for tests that open it with this release.
// scripts/oldrelease-fixture makes testdata/ again.
package oldreleasetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The fixture: data.tar.gz is the data directory the old release wrote and
// was killed on (SIGKILL, a project mid-pipeline); answers.json the rest.
//
//go:embed testdata/answers.json testdata/data.tar.gz
var files embed.FS

// Fixture is what the old release made and answered.
type Fixture struct {
	Commit string
	// DevKey is the CLIPPERD_API_KEY it ran with; OtherKey the key made by
	// `keys create` before it, the organization's first, so the one its
	// webhooks are signed with.
	DevKey, OtherKey          string
	TemplateID, PostAccountID string
	UploadID                  string
	// DoneProject is COMPLETE with a WEBHOOK conclusion action; the old
	// release was killed while InFlightProject was at InFlightStage.
	DoneProject, InFlightProject string
	InFlightStage                string
	CollectionID, ClipID, PostID string
	// DueSchedule was due at DueAt, after the kill; LaterSchedule is due in 2099.
	DueSchedule, LaterSchedule string
	DueAt                      time.Time
	CopyJob, CensorJob         string
	// PendingPost (to a webhook account) and a conclusion delivery of
	// DoneProject go to DeadAddress, where nothing listens: both were
	// pending at the kill, tried that many times.
	PendingPost                                  string
	DeadAddress                                  string
	PendingPostAttempts, PendingDeliveryAttempts int
	// Reads maps each API path read to the old release's answer, with its
	// address replaced by BASE and the media links' query strings taken out.
	Reads map[string]string
	// Media are the links to DoneProject's clips the old release handed out
	// (valid until 2117) and the sha256 of the bytes it served.
	Media []struct{ Path, Sha256 string }
	// Webhooks are the conclusion deliveries it sent: body, signature, salt.
	Webhooks []struct{ Body, Signature, Salt string }
}

// Open writes the old release's data directory into a new temporary
// directory and returns it with the fixture.
func Open(t testing.TB) (string, Fixture) {
	t.Helper()
	var fx Fixture
	data, err := files.ReadFile("testdata/answers.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	archive, err := files.ReadFile("testdata/data.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "data")
	if err := untar(archive, dir); err != nil {
		t.Fatal(err)
	}
	return dir, fx
}

// Clock is the clock to start this release with on the fixture: a second
// after the old release's due schedule, as if this release replaced it at
// once, whatever day the test runs. On the real clock the fixture's media
// expire 30 days after it was made (storageExpireAt), and the janitor then
// rightly deletes them.
func (fx Fixture) Clock() func() time.Time {
	start := time.Now()
	return func() time.Time { return fx.DueAt.Add(time.Second + time.Since(start)) }
}

// Comparable is the part of an answer to the API read path that this
// release is to answer as the old one did: all of it, but for
// brand-templates the organization's own templates only, since the presets
// are code, changed on purpose since (e862ce0: Gameplay sets the game
// layout only).
func Comparable(t testing.TB, path, answer string) string {
	t.Helper()
	if !strings.HasPrefix(path, "/api/brand-templates") {
		return answer
	}
	var all, own []json.RawMessage
	if err := json.Unmarshal([]byte(answer), &all); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	for _, tpl := range all {
		var kind struct{ Type string }
		if err := json.Unmarshal(tpl, &kind); err != nil {
			t.Fatal(err)
		}
		if kind.Type == "custom" {
			own = append(own, tpl)
		}
	}
	if len(own) == 0 {
		t.Fatalf("GET %s: no template of the organization in %s", path, answer)
	}
	data, err := json.Marshal(own)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// untar writes the gzip-compressed tar archive into dir: directories,
// regular files and hard links (the old release links an upload to its
// projects' sources).
func untar(archive []byte, dir string) error {
	gz, err := gzip.NewReader(bytes.NewReader(archive))
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
