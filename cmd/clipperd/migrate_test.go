package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/datalock"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// runMigrate runs `clipperd migrate args...` in process.
func runMigrate(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(t.Context(), append([]string{"migrate"}, args...), &out, &errOut)
	return out.String() + errOut.String(), err
}

// Each refusal names the flag to fix: a missing one, a target that is no
// PostgreSQL URL or media store, a copy onto the source itself, a source
// that is no data directory or that a clipperd serves, a target with rows.
func TestMigrateRefusals(t *testing.T) {
	from := t.TempDir()
	to := t.TempDir()
	pg := "postgres://nobody@127.0.0.1:1/none"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to-database", pg, "--to-media", to}, "--from is required"},
		{[]string{"--from", from, "--to-media", to}, "--to-database is required"},
		{[]string{"--from", from, "--to-database", pg}, "--to-media is required"},
		{[]string{"--from", from, "--to-database", filepath.Join(to, "x.db"), "--to-media", to}, "--to-database must be a postgres:// URL"},
		{[]string{"--from", from, "--to-database", pg, "--to-media", "gs://bucket"}, "--to-media"},
		{[]string{"--from", from, "--to-database", pg, "--to-media", from}, "--to-media " + from + " is the source's own media directory"},
	} {
		_, err := runMigrate(t, c.args...)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("migrate %v: %v, want a usage error with %q", c.args, err, c.want)
		}
	}

	url := storetest.PostgresURL(t)
	if _, err := runMigrate(t, "--from", from, "--to-database", url, "--to-media", to); err == nil ||
		!strings.Contains(err.Error(), "--from "+from+": no clipperd database") {
		t.Errorf("migrate of an empty directory: %v, want it refused naming --from", err)
	}

	createKey(t, from, "org-other", "user-bob")
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: from})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runMigrate(t, "--from", from, "--to-database", url, "--to-media", to); err == nil ||
		!strings.Contains(err.Error(), "--from "+from+": a clipperd process is running") || !strings.Contains(err.Error(), "stop it first") {
		t.Errorf("migrate of a served directory: %v, want it refused naming --from", err)
	}
	_ = srv.Close()

	if _, err := runMigrate(t, "--from", from, "--to-database", url, "--to-media", to, "--quiet"); err != nil {
		t.Fatalf("migrate of the stopped directory: %v", err)
	}
	if _, err := runMigrate(t, "--from", from, "--to-database", url, "--to-media", to); err == nil ||
		!strings.Contains(err.Error(), "--to-database: the target database is not empty") {
		t.Errorf("migrate into a database with rows: %v, want it refused naming --to-database", err)
	}
}

// A key made on the single box works on the moved one, and its media are
// in the target directory under the same keys; the summary says so.
func TestMigrateToADirectory(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	key := createKey(t, from, "org-acme", "user-ann")
	clip := filepath.Join("media", "prj_1", "c01.mp4")
	if err := os.MkdirAll(filepath.Join(from, filepath.Dir(clip)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(from, clip), []byte("a render"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := storetest.PostgresURL(t)
	out, err := runMigrate(t, "--from", from, "--to-database", url, "--to-media", to)
	if err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	for _, want := range []string{"media media/prj_1/c01.mp4 (8 bytes)", "media: 1 files copied (8 bytes)", "api_keys", "done:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(to, clip)); err != nil || string(b) != "a render" {
		t.Errorf("the moved clip: %q %v", b, err)
	}
	// The moved secrets open with the single box's master key (the default
	// key file, which `keys create` found without a flag).
	master, _, err := masterkey.Resolve("", "", from)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), url, store.WithMasterKey(master))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if first, err := st.FirstKey(t.Context(), "org-acme"); err != nil || first != key {
		t.Errorf("the webhook signing key after the move: %v", err)
	}
	if k, err := st.LookupKey(t.Context(), key); err != nil || k.OrgID != "org-acme" {
		t.Errorf("the key after the move: %+v %v", k, err)
	}
}

// While a migration holds the data directory (its exclusive lock), serve
// and the commands that change the state refuse it: what they wrote would
// not be copied. They work again once it is released.
func TestCommandsRefuseADirectoryBeingMigrated(t *testing.T) {
	dir := t.TempDir()
	lock, err := datalock.Exclusive(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err = run(t.Context(), []string{"keys", "create", "--data", dir, "--org", "o", "--user", "u"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "clipperd migrate") {
		t.Errorf("keys create during a migration: %v, want a refusal naming clipperd migrate", err)
	}
	if _, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir}); err == nil || !strings.Contains(err.Error(), "clipperd migrate") {
		t.Errorf("serve during a migration: %v, want a refusal naming clipperd migrate", err)
	}
	_ = lock.Release()
	createKey(t, dir, "org-acme", "user-ann")
}
