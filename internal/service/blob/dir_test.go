package blob_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/blobtest"
)

func TestDir(t *testing.T) {
	t.Parallel()
	blobtest.Run(t, func(t *testing.T) blob.Store {
		d, err := blob.NewDir(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}

// servedDir presigns the keys of a Dir as an address of a server that
// serves them with ranges, as clipperd's /media does.
type servedDir struct {
	d   *blob.Dir
	srv *httptest.Server
}

func (s *servedDir) Presign(_ context.Context, key string, _ time.Duration) (string, error) {
	if !strings.HasPrefix(key, "media/") {
		return "", blob.ErrNoPresign
	}
	return s.srv.URL + "/" + key, nil
}

func TestDirPresign(t *testing.T) {
	t.Parallel()
	blobtest.Run(t, func(t *testing.T) blob.Store {
		sd := &servedDir{}
		d, err := blob.NewDir(t.TempDir(), sd)
		if err != nil {
			t.Fatal(err)
		}
		sd.d = d
		sd.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f, err := d.Open(r.Context(), strings.TrimPrefix(r.URL.Path, "/"))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			defer f.Close()
			http.ServeContent(w, r, "", f.Info().ModTime, f)
		}))
		t.Cleanup(sd.srv.Close)
		return d
	})
}

// TestDirLayout pins the files keys name: the data directory's layout.
func TestDirLayout(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d, err := blob.NewDir(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, key := range []string{blob.MediaKey("p1", "c01.mp4"), blob.UploadKey("up_1"), blob.PublishedKey("acc", "post", "post.json")} {
		if err := blob.Write(ctx, d, key, strings.NewReader(key)); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"media/p1/c01.mp4", "uploads/up_1.bin", "published/acc/post/post.json"} {
		if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
			t.Errorf("want the file %s: %v", rel, err)
		}
	}
	if p, err := d.LocalPath("media/p1/c01.mp4"); err != nil || p != filepath.Join(root, "media", "p1", "c01.mp4") {
		t.Errorf("LocalPath = %q, %v", p, err)
	}
	// A pending write and a leftover of a crash are never listed.
	w, err := d.Create(ctx, "media/p1/c02.mp4")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Abort() }()
	list, err := d.List(ctx, "media/p1/")
	if err != nil || len(list) != 1 || list[0].Key != "media/p1/c01.mp4" {
		t.Fatalf("List with a pending write = %v, %v", list, err)
	}
	if _, err := d.LocalPath("/etc/passwd"); !errors.Is(err, blob.ErrInvalidKey) {
		t.Errorf("LocalPath of an absolute path = %v", err)
	}
}
