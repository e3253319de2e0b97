package backup

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// dataDir is a stopped server's data directory: a project with one clip
// whose export and preview are stored with their sums, and the master key
// file an older installation kept in the root (the store makes one there
// when given no key), returned with its key.
func dataDir(t *testing.T) (string, *masterkey.Key) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.MediaKey(t.Context()); err != nil { // sealed with the master key, as a server does at start
		t.Fatal(err)
	}
	if err := st.CreateProject(t.Context(), &store.Project{ID: "p1", OrgID: "org", Stage: apitypes.StageComplete}, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	clip := store.Clip{ID: "p1.c1", CurationID: "c1", URIForExport: "/media/p1/c1.mp4", URIForPreview: "/media/p1/c1.preview.mp4"}
	if err := st.ReplaceClips(t.Context(), "p1", "org", []store.Clip{clip}); err != nil {
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
	key, err := masterkey.Load(filepath.Join(dir, masterkey.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	return dir, key
}

// TestBackupReportsWhatChangedAndRestoreWhatIsDamaged: a backup lists the
// keys its snapshot names that were gone and the renders that differ from
// their sums; the database's log, damaged copies and master key file do not
// travel; a restore lists a render damaged in the backup.
func TestBackupReportsWhatChangedAndRestoreWhatIsDamaged(t *testing.T) {
	dir, key := dataDir(t)
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
	if want := []string{ManifestFile, store.DefaultFile, "media"}; !slices.Equal(names, want) {
		t.Errorf("backup holds %v; want %v", names, want)
	}

	// Damage the backup's copy of the export: the restore says so.
	if err := os.Truncate(filepath.Join(to, "media", "p1", "c1.mp4"), 3); err != nil {
		t.Fatal(err)
	}
	restored := filepath.Join(t.TempDir(), "restored")
	report, err = Restore(t.Context(), to, restored, key)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(report.Changed, []string{"media/p1/c1.mp4"}) || report.Files != 1 {
		t.Errorf("restore report %+v; want 1 file and the export damaged", report)
	}
	if _, err := Restore(t.Context(), to, restored, key); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("a restore into the restored directory again = %v; want it refused", err)
	}
}

// TestHardLinksStayLinks: a post's copy that is a hard link to its clip
// (it shares the clip's bytes) is a link in the backup and in the restore,
// not a second copy.
func TestHardLinksStayLinks(t *testing.T) {
	dir, key := dataDir(t)
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
	if report.Linked != 1 || report.Files != 2 || !same(to) {
		t.Errorf("backup %+v, linked in it: %v; want the post's copy linked to its clip, 2 files copied", report, same(to))
	}
	restored := filepath.Join(t.TempDir(), "restored")
	report, err = Restore(t.Context(), to, restored, key)
	if err != nil {
		t.Fatal(err)
	}
	if report.Linked != 1 || !same(restored) || len(report.Changed) != 0 {
		t.Errorf("restore %+v, linked in it: %v; want the link kept and nothing changed", report, same(restored))
	}
}

// TestRestoreWantsTheKeyKeptApart: a backup leaves out even the key file an
// older installation keeps in its data directory; a restore without a key
// is refused before copying, one with another key is refused and leaves the
// directory empty for another try, the installation's key restores, and a
// backup made by an older clipperd (holding the key file) restores alone.
func TestRestoreWantsTheKeyKeptApart(t *testing.T) {
	dir, key := dataDir(t)
	to := filepath.Join(t.TempDir(), "backup")
	if _, err := Backup(t.Context(), dir, filepath.Join(dir, store.DefaultFile), to); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(to, masterkey.DefaultFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the backup holds the master key file: %v", err)
	}
	restored := filepath.Join(t.TempDir(), "restored")
	if _, err := Restore(t.Context(), to, restored, nil); !errors.Is(err, ErrNoMasterKey) || !strings.Contains(err.Error(), "--master-key-file") {
		t.Errorf("restore without a key = %v; want ErrNoMasterKey naming --master-key-file", err)
	}
	other := storetest.MasterKey()
	if _, err := Restore(t.Context(), to, restored, other); !errors.Is(err, masterkey.ErrWrongKey) {
		t.Errorf("restore with another key = %v; want ErrWrongKey", err)
	}
	if entries, err := os.ReadDir(restored); err != nil || len(entries) != 0 {
		t.Errorf("after a refused restore the directory holds %d entries (%v); want it empty", len(entries), err)
	}
	if _, err := Restore(t.Context(), to, restored, key); err != nil {
		t.Errorf("restore with the installation's key: %v", err)
	}
	if _, err := os.Stat(filepath.Join(restored, masterkey.DefaultFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the restore made a key file in the data directory: %v", err)
	}

	// An older clipperd's backup carried the key file: it restores alone.
	raw, err := os.ReadFile(filepath.Join(dir, masterkey.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(to, masterkey.DefaultFile), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(t.Context(), to, filepath.Join(t.TempDir(), "older"), nil); err != nil {
		t.Errorf("restore of a backup holding its key file: %v", err)
	}
}
