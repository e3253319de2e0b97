package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// A clipperd media address imports only a rendered clip of the same org:
// media addresses need no key, so anything else would hand out sources or
// other orgs' clips.
func TestImportOwnMediaOnlyClipsOfTheSameOrg(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mine := e.create(apitypes.CreateProjectRequest{VideoURL: "up_a"})
	theirs := store.NewID("prj_")
	other := &store.Project{ID: theirs, OrgID: "org-other", Stage: apitypes.StageComplete, CreatedAt: e.st.Now()}
	if err := e.st.CreateProject(ctx, other, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{mine + "/c01.mp4", mine + "/c01.preview.mp4", mine + "/source.mp4", mine + "/notes.txt", theirs + "/c01.mp4"} {
		path := filepath.Join(e.dir, "media", filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("bytes of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	importer := e.project(e.create(apitypes.CreateProjectRequest{VideoURL: "up_b"}))
	media := publicURL + "/media/"

	for _, ok := range []string{mine + "/c01.mp4", mine + "/c01.preview.mp4?download=1"} {
		dst := blob.MediaKey(importer.ID, "source.mp4")
		if err := r.importOwnMedia(ctx, importer, media+ok, dst); err != nil {
			t.Errorf("import %s: %v", ok, err)
			continue
		}
		if b, _ := os.ReadFile(filepath.Join(e.dir, "media", importer.ID, "source.mp4")); !strings.HasPrefix(string(b), "bytes of "+mine+"/c01.") {
			t.Errorf("import %s wrote %q", ok, b)
		}
	}
	for _, bad := range []string{
		theirs + "/c01.mp4",                 // another org's clip
		mine + "/source.mp4",                // a source, not a clip
		mine + "/notes.txt",                 // not a clip file
		mine + "/../" + theirs + "/c01.mp4", // a way out of the project
		mine + "%2F..%2F" + theirs + "%2Fc01.mp4",
		"prj_unknown/c01.mp4",
		mine,
		mine + "/c09.mp4", // not rendered
	} {
		raw := media + bad
		err := r.importOwnMedia(ctx, importer, raw, blob.MediaKey(importer.ID, "source.mp4"))
		if err == nil || !isPermanent(err) || !strings.Contains(err.Error(), "videoUrl") || !strings.Contains(err.Error(), raw) {
			t.Errorf("import %s = %v, want a permanent error naming videoUrl", bad, err)
		}
	}
}
