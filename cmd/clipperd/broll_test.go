package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// `clipperd broll` adds an image to an org's library (its picture under
// the data directory), lists it, refuses what is no picture, and removes it.
func TestBrollAddListRemove(t *testing.T) {
	toolexectest.RequireMedia(t)
	dir, files := t.TempDir(), t.TempDir()
	png, txt := filepath.Join(files, "oven.png"), filepath.Join(files, "notes.txt")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=red:s=64x48", "-frames:v", "1", png).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v %s", err, out)
	}
	if err := os.WriteFile(txt, []byte("no picture here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(t.Context(), append(append([]string{"broll"}, args...), "--data", dir), &out, &errOut)
		return out.String(), err
	}

	out, err := cmd("add", "--org", "org_a", "--file", png, "--keywords", " oven, bake bread ,")
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(out)
	id := words[len(words)-1]
	if !strings.HasPrefix(id, "broll_") || !strings.Contains(out, "image oven.png (64x48)") || !strings.Contains(out, "oven, bake bread") {
		t.Errorf("add printed %q", out)
	}
	picture := filepath.Join(dir, "broll", "org_a", id+".png")
	if data, err := os.ReadFile(picture); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("the picture at %s: %v", picture, err)
	}

	if _, err := cmd("add", "--org", "org_a", "--file", txt, "--keywords", "notes"); err == nil || !strings.Contains(err.Error(), "is not an image or a video") {
		t.Errorf("adding a text file: %v, want a refusal saying it is no picture", err)
	}
	if _, err := cmd("add", "--org", "org_a", "--file", png); !errors.Is(err, errUsage) {
		t.Errorf("add without --keywords: %v, want a usage error", err)
	}

	for org, want := range map[string]bool{"org_a": true, "org_b": false} {
		out, err := cmd("list", "--org", org)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out, id) && strings.Contains(out, "oven,bake bread") && strings.Contains(out, "image"); got != want {
			t.Errorf("list --org %s lists the item: %v, want %v:\n%s", org, got, want, out)
		}
		if strings.Count(out, "broll_") > 1 {
			t.Errorf("list --org %s lists more than the item:\n%s", org, out)
		}
	}

	if _, err := cmd("remove", "--org", "org_b", "--id", id); err == nil {
		t.Error("another org removed the item")
	}
	if out, err := cmd("remove", "--org", "org_a", "--id", id); err != nil || !strings.Contains(out, id) {
		t.Fatalf("remove: %q, %v", out, err)
	}
	if _, err := os.Stat(picture); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the picture is still there after the removal: %v", err)
	}
	if out, err := cmd("list", "--org", "org_a"); err != nil || strings.Contains(out, id) {
		t.Errorf("list after the removal: %q, %v", out, err)
	}
}

func TestBrollUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"broll"},
		{"broll", "show", "--data", dir},
		{"broll", "list", "--data", dir},
		{"broll", "remove", "--data", dir, "--org", "o"},
		{"broll", "add", "--data", dir, "--org", "o", "--file", "x.png", "--keywords", " , ,"},
		{"broll", "add", "--data", dir, "--org", "o", "--file", "x.png", "--keywords", strings.Repeat("x", 101)},
		{"broll", "list", "--data", dir, "--org", "o", "extra"},
	} {
		var out, errOut bytes.Buffer
		if err := run(t.Context(), args, &out, &errOut); !errors.Is(err, errUsage) {
			t.Errorf("run %q: error %v, want a usage error", args, err)
		}
	}
}
