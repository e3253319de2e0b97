package masterkey

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealOpens(t *testing.T) {
	k, _ := Generate()
	sealed := k.Seal("media", []byte("secret bytes"))
	if bytes.Contains(sealed, []byte("secret bytes")) {
		t.Fatal("sealed value holds the plain text")
	}
	got, err := k.Open("media", sealed)
	if err != nil || string(got) != "secret bytes" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := k.Open("api key", sealed); !errors.Is(err, ErrWrongKey) {
		t.Errorf("opened under another purpose: %v", err)
	}
	other, _ := Generate()
	if _, err := other.Open("media", sealed); !errors.Is(err, ErrWrongKey) {
		t.Errorf("opened with another key: %v", err)
	}
	if _, err := k.Open("media", sealed[:10]); !errors.Is(err, ErrWrongKey) {
		t.Errorf("opened a truncated seal: %v", err)
	}
}

// TestLoadMakesThenKeeps: the first Load makes a 0600 file; later ones
// (and a file made looser by hand) read the same key back, mode 0600.
func TestLoadMakesThenKeeps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", DefaultFile)
	k1, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("key file directory mode %v, want 0700", di.Mode().Perm())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	k2, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := k2.Open("x", k1.Seal("x", []byte("v"))); err != nil || string(got) != "v" {
		t.Errorf("a second Load read another key: %v", err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("loose key file left %v, want 0600", fi.Mode().Perm())
	}
}

func TestParse(t *testing.T) {
	_, b64 := Generate()
	for _, text := range []string{b64, " " + b64 + "\n", strings.TrimRight(b64, "="), "0707070707070707070707070707070707070707070707070707070707070707"} {
		if _, err := Parse(text); err != nil {
			t.Errorf("Parse(%q): %v", text, err)
		}
	}
	for _, text := range []string{"", "short", b64[:20], strings.Repeat("zz", 32)} {
		if _, err := Parse(text); err == nil || !strings.Contains(err.Error(), "32 bytes") {
			t.Errorf("Parse(%q) = %v, want an error naming the size", text, err)
		}
	}
}

func TestResolvePrefersEnv(t *testing.T) {
	dir := t.TempDir()
	_, text := Generate()
	if _, from, err := Resolve(text, "", dir); err != nil || from != Env {
		t.Fatalf("Resolve with env = %s, %v", from, err)
	}
	if _, err := os.Stat(filepath.Join(dir, DefaultFile)); !os.IsNotExist(err) {
		t.Errorf("a key file was made although %s was set", Env)
	}
	if _, from, err := Resolve("", "", dir); err != nil || from != filepath.Join(dir, DefaultFile) {
		t.Errorf("Resolve without env = %s, %v", from, err)
	}
	if _, _, err := Resolve("nope", "", dir); err == nil || !strings.Contains(err.Error(), Env) {
		t.Errorf("a bad %s = %v, want an error naming it", Env, err)
	}
}

// TestResolveSharedWantsAGivenKey: processes sharing a database are not
// given a key file of their own data directory, which would differ.
func TestResolveSharedWantsAGivenKey(t *testing.T) {
	dir := t.TempDir()
	_, _, err := ResolveFor(true, "", "", dir)
	if err == nil || !strings.Contains(err.Error(), Env) || !strings.Contains(err.Error(), "--master-key-file") {
		t.Fatalf("ResolveFor(shared) without a key = %v; want an error naming %s and --master-key-file", err, Env)
	}
	if _, err := os.Stat(filepath.Join(dir, DefaultFile)); !os.IsNotExist(err) {
		t.Errorf("a key file was made in the data directory: %v", err)
	}
	_, text := Generate()
	if _, from, err := ResolveFor(true, text, "", dir); err != nil || from != Env {
		t.Errorf("ResolveFor(shared) with %s = %q, %v", Env, from, err)
	}
	if _, from, err := ResolveFor(false, "", "", dir); err != nil || from != filepath.Join(dir, DefaultFile) {
		t.Errorf("ResolveFor(not shared) = %q, %v; want the data directory's key file", from, err)
	}
}
