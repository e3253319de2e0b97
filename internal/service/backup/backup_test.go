package backup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// dataDir is a stopped server's data directory: a project with one clip
// whose export and preview are stored with their sums, and a key file in
// the root.
func dataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CreateProject(t.Context(), &store.Project{ID: "p1", OrgID: "org", Stage: apitypes.StageComplete}, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	clip := apitypes.ExportableClip{ID: "p1.c1", CurationID: "c1", URIForExport: "/media/p1/c1.mp4", URIForPreview: "/media/p1/c1.preview.mp4"}
	if err := st.ReplaceClips(t.Context(), "p1", "org", []apitypes.ExportableClip{clip}); err != nil {
		t.Fatal(err)
	}
	media, err := blob.NewDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c1.mp4", "c1.preview.mp4"} {
		src := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(src, []byte("the render "+name), 0o644); err != nil {
			t.Fatal(err)
		}
		key := blob.MediaKey("p1", name)
		sum, err := blob.PutFileSum(t.Context(), media, key, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.RecordMediaSum(t.Context(), key, store.MediaSum(sum)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "master.key"), []byte("a key file"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBackupReportsWhatChangedAndRestoreWhatIsDamaged: a backup lists the
// keys its snapshot names that were gone and the renders that differ from
// their sums; the root's key file travels, the database's log and damaged
// copies do not; a restore lists a render damaged in the backup.
func TestBackupReportsWhatChangedAndRestoreWhatIsDamaged(t *testing.T) {
	dir := dataDir(t)
	if err := os.Remove(filepath.Join(dir, "media", "p1", "c1.preview.mp4")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "media", "p1", "c1.mp4"), []byte("the render c1.mp4, censored"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, store.DefaultFile+".damaged-20260101T000000Z"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(t.TempDir(), "backup")
	report, err := Backup(t.Context(), dir, filepath.Join(dir, store.DefaultFile), to)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(report.Missing, []string{"media/p1/c1.preview.mp4"}) || !slices.Equal(report.Changed, []string{"media/p1/c1.mp4"}) {
		t.Errorf("backup report %+v; want the preview missing and the export changed", report)
	}
	entries, err := os.ReadDir(to)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{ManifestFile, store.DefaultFile, "master.key", "media"}; !slices.Equal(names, want) {
		t.Errorf("backup holds %v; want %v", names, want)
	}
	if fi, err := os.Stat(filepath.Join(to, "master.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the key file in the backup: %v, %v; want it there, owner-only", fi, err)
	}

	// Damage the backup's copy of the export: the restore says so.
	if err := os.Truncate(filepath.Join(to, "media", "p1", "c1.mp4"), 3); err != nil {
		t.Fatal(err)
	}
	restored := filepath.Join(t.TempDir(), "restored")
	report, err = Restore(t.Context(), to, restored)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(report.Changed, []string{"media/p1/c1.mp4"}) || report.Files != 2 {
		t.Errorf("restore report %+v; want 2 files and the export damaged", report)
	}
	if _, err := Restore(t.Context(), to, restored); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("a restore into the restored directory again = %v; want it refused", err)
	}
}

// TestHardLinksStayLinks: a post's copy that is a hard link to its clip
// (it shares the clip's bytes) is a link in the backup and in the restore,
// not a second copy.
func TestHardLinksStayLinks(t *testing.T) {
	dir := dataDir(t)
	post := filepath.Join(dir, "published", "acc1", "post1", "clip.mp4")
	if err := os.MkdirAll(filepath.Dir(post), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "media", "p1", "c1.mp4"), post); err != nil {
		t.Fatal(err)
	}
	same := func(root string) bool {
		t.Helper()
		a, err := os.Stat(filepath.Join(root, "media", "p1", "c1.mp4"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.Stat(filepath.Join(root, "published", "acc1", "post1", "clip.mp4"))
		if err != nil {
			t.Fatal(err)
		}
		return os.SameFile(a, b)
	}
	to := filepath.Join(t.TempDir(), "backup")
	report, err := Backup(t.Context(), dir, filepath.Join(dir, store.DefaultFile), to)
	if err != nil {
		t.Fatal(err)
	}
	if report.Linked != 1 || report.Files != 3 || !same(to) {
		t.Errorf("backup %+v, linked in it: %v; want the post's copy linked to its clip, 3 files copied", report, same(to))
	}
	restored := filepath.Join(t.TempDir(), "restored")
	report, err = Restore(t.Context(), to, restored)
	if err != nil {
		t.Fatal(err)
	}
	if report.Linked != 1 || !same(restored) || len(report.Changed) != 0 {
		t.Errorf("restore %+v, linked in it: %v; want the link kept and nothing changed", report, same(restored))
	}
}
