package scratch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Processes sharing a data directory sweep only what no live process holds:
// a live owner's job directories stay, a dead owner's (its lock released,
// as the kernel does when a process dies) and an older release's go.
func TestClaimSweepsOnlyDeadOwners(t *testing.T) {
	root := filepath.Join(t.TempDir(), "tmp")
	if err := os.MkdirAll(filepath.Join(root, "prj_old"), 0o700); err != nil { // an older release's job
		t.Fatal(err)
	}
	live, err := Claim(root)
	if err != nil {
		t.Fatal(err)
	}
	liveJob, err := live.Make("prj_1.run0")
	if err != nil {
		t.Fatal(err)
	}
	dead, err := Claim(root)
	if err != nil {
		t.Fatal(err)
	}
	deadJob, err := dead.Make("prj_2.run0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(liveJob); err != nil {
		t.Fatalf("a second process's start swept a live one's job: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "prj_old")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an older release's job directory stays: %v", err)
	}
	_ = dead.lock.Release() // the process dies: its lock goes, its files stay

	next, err := Claim(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deadJob); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dead process's job directory stays: %v", err)
	}
	if _, err := os.Stat(liveJob); err != nil {
		t.Errorf("a live process's job went: %v", err)
	}
	for _, o := range []*Owned{live, next} {
		if err := o.Release(); err != nil {
			t.Fatal(err)
		}
	}
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
		t.Errorf("after every process released, the root holds %v (%v)", entries, err)
	}
}
