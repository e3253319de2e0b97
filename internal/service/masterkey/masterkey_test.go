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

// isolate points the user's configuration directory at a new temporary
// one, so no test writes the real ~/.config, and returns the default key
// file's path there.
func isolate(t *testing.T) string {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	return filepath.Join(cfg, DefaultDir, DefaultFile)
}

func TestResolvePrefersEnv(t *testing.T) {
	def := isolate(t)
	dir := t.TempDir()
	_, text := Generate()
	if _, from, err := Resolve(text, "", dir); err != nil || from != Env {
		t.Fatalf("Resolve with env = %s, %v", from, err)
	}
	if _, err := os.Stat(def); !os.IsNotExist(err) {
		t.Errorf("a key file was made although %s was set", Env)
	}
	if _, from, err := Resolve("", "", dir); err != nil || from != def {
		t.Errorf("Resolve without env = %s, %v; want %s", from, err, def)
	}
	if _, _, err := Resolve("nope", "", dir); err == nil || !strings.Contains(err.Error(), Env) {
		t.Errorf("a bad %s = %v, want an error naming it", Env, err)
	}
}

// TestDefaultKeyIsOutsideTheDataDir: a new installation's key file is made
// in the user's configuration directory (0600 in a 0700 directory), never
// in the data directory, whose copy must open nothing.
func TestDefaultKeyIsOutsideTheDataDir(t *testing.T) {
	def := isolate(t)
	data := t.TempDir()
	k1, from, err := Resolve("", "", data)
	if err != nil || from != def {
		t.Fatalf("Resolve = %q, %v; want %s", from, err, def)
	}
	if _, err := os.Stat(filepath.Join(data, DefaultFile)); !os.IsNotExist(err) {
		t.Errorf("a key file was made in the data directory: %v", err)
	}
	if fi, err := os.Stat(def); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("default key file: %v, %v; want mode 0600", fi, err)
	}
	if di, err := os.Stat(filepath.Dir(def)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("default key directory: %v, %v; want mode 0700", di, err)
	}
	k2, _, err := Resolve("", "", t.TempDir()) // another data directory: the same key
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k2.Open("x", k1.Seal("x", []byte("v"))); err != nil {
		t.Errorf("a second Resolve read another key: %v", err)
	}
	if InDataDir(data) {
		t.Error("InDataDir is true for a data directory without a key file")
	}
}

// TestOlderInstallationKeepsItsKey: a data directory that holds the key
// file an older clipperd made there keeps using it (its secrets were sealed
// with it), and the move hint names both places.
func TestOlderInstallationKeepsItsKey(t *testing.T) {
	def := isolate(t)
	data := t.TempDir()
	old, err := Load(filepath.Join(data, DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	k, from, err := Resolve("", "", data)
	if err != nil || from != filepath.Join(data, DefaultFile) {
		t.Fatalf("Resolve = %q, %v; want the data directory's key file", from, err)
	}
	if _, err := k.Open("x", old.Seal("x", []byte("v"))); err != nil {
		t.Errorf("the older installation's key was not used: %v", err)
	}
	if _, err := os.Stat(def); !os.IsNotExist(err) {
		t.Errorf("a default key file was made beside an older installation's: %v", err)
	}
	if !InDataDir(data) {
		t.Error("InDataDir is false for a data directory with a key file")
	}
	if hint := MoveHint(data); !strings.Contains(hint, filepath.Join(data, DefaultFile)) || !strings.Contains(hint, def) {
		t.Errorf("MoveHint = %q; want the mv from the data directory to %s", hint, def)
	}
	if err := os.MkdirAll(filepath.Dir(def), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(def, []byte("taken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if hint := MoveHint(data); strings.Contains(hint, def) || !strings.Contains(hint, "--master-key-file") {
		t.Errorf("MoveHint with the default place taken = %q; want a move elsewhere with --master-key-file", hint)
	}
}

// TestNoConfigDirRefuses: without a configuration directory there is no
// default place for the key, and the refusal names both ways to give one.
func TestNoConfigDirRefuses(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	data := t.TempDir()
	_, _, err := Resolve("", "", data)
	if err == nil || !strings.Contains(err.Error(), "--master-key-file") || !strings.Contains(err.Error(), Env) {
		t.Fatalf("Resolve without a configuration directory = %v; want a refusal naming --master-key-file and %s", err, Env)
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("the data directory got %d entries", len(entries))
	}
	file := filepath.Join(t.TempDir(), "k")
	if _, from, err := Resolve("", file, data); err != nil || from != file {
		t.Errorf("Resolve with a key file and no configuration directory = %q, %v", from, err)
	}
}

// TestResolveSharedWantsAGivenKey: processes sharing a database are not
// given a key file of their own, which would differ.
func TestResolveSharedWantsAGivenKey(t *testing.T) {
	def := isolate(t)
	dir := t.TempDir()
	_, _, err := ResolveFor(true, "", "", dir)
	if err == nil || !strings.Contains(err.Error(), Env) || !strings.Contains(err.Error(), "--master-key-file") {
		t.Fatalf("ResolveFor(shared) without a key = %v; want an error naming %s and --master-key-file", err, Env)
	}
	if _, err := os.Stat(def); !os.IsNotExist(err) {
		t.Errorf("a default key file was made: %v", err)
	}
	_, text := Generate()
	if _, from, err := ResolveFor(true, text, "", dir); err != nil || from != Env {
		t.Errorf("ResolveFor(shared) with %s = %q, %v", Env, from, err)
	}
	if _, from, err := ResolveFor(false, "", "", dir); err != nil || from != def {
		t.Errorf("ResolveFor(not shared) = %q, %v; want the default key file", from, err)
	}
}
