package scratch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestMakeRemove(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tmp")
	d := New(root)
	if d.Root() != root || (Dirs{}).Root() != "" {
		t.Errorf("Root = %q, want %q", d.Root(), root)
	}
	dir, err := d.Make("prj_1")
	if err != nil || dir != filepath.Join(root, "prj_1") {
		t.Fatalf("Make = %q, %v", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "left.wav"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A second run of the same job starts empty.
	if dir, err = d.Make("prj_1"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Make kept %d leftovers", len(entries))
	}
	other, err := d.Make("cj_2")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Remove("prj_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Remove left %s: %v", dir, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("Remove of one job removed another's: %v", err)
	}
}

func TestIDsArePlainNames(t *testing.T) {
	d := New(t.TempDir())
	for _, id := range []string{"", "..", "../x", "a/b", `a\b`, ".hidden"} {
		if _, err := d.Make(id); err == nil {
			t.Errorf("Make(%q) succeeded", id)
		}
		if err := d.Remove(id); err == nil {
			t.Errorf("Remove(%q) succeeded", id)
		}
	}
	if _, err := (Dirs{}).Make("prj_1"); err == nil {
		t.Error("Make without a root succeeded")
	}
}
