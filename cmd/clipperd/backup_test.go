package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

const backupKey = "ck_backup_test_key"

// startServer runs clipperd on dir until the test ends, and a client of it.
func startServer(t *testing.T, dir string) *client.Client {
	t.Helper()
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir, APIKey: backupKey,
		Limits: quota.Limits{RateLimit: 600}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	c, err := client.New(client.Config{BaseURL: srv.URL(), APIKey: backupKey, RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func waitInProcess(t *testing.T, c *client.Client, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	p, err := c.WaitForProject(ctx, id, client.WaitOptions{PollInterval: 200 * time.Millisecond, MaxPollInterval: time.Second})
	if err != nil || p.Stage != apitypes.StageComplete {
		t.Fatalf("project %s: %v", id, err)
	}
}

// TestBackupWhileRunningThenRestoreServes: `clipperd backup` of a running
// server, while a project renders (seen at RENDER), restores with `clipperd restore` into
// another directory that serves every clip of the backup byte for byte,
// and the project in flight at the backup completes there. A non-empty
// target is refused, and so is a directory that is not a whole backup.
func TestBackupWhileRunningThenRestoreServes(t *testing.T) {
	// Alone it mostly waits on its processes: run beside the others like it.
	t.Parallel()
	toolexectest.RequireMedia(t)
	src := filepath.Join(t.TempDir(), "src.mp4")
	if err := testvideo.Generate(t.Context(), src, testvideo.Options{Duration: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := startServer(t, dir)
	upload, err := c.UploadFile(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	create := func() string {
		p, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{VideoURL: upload,
			CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{5, 12}}}})
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	done := create()
	waitInProcess(t, c, done)
	inFlight := create()
	waitStage(t, c, inFlight, apitypes.StageRender)

	backupDir := filepath.Join(t.TempDir(), "backup")
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"backup", "--data", dir, "--to", backupDir}, &out, &errOut); err != nil {
		t.Fatalf("backup while serving: %v\n%s%s", err, out.String(), errOut.String())
	}
	t.Logf("backup: %s", out.String())
	if err := run(t.Context(), []string{"backup", "--data", dir, "--to", backupDir}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("a backup into a non-empty directory = %v; want it refused", err)
	}
	if err := run(t.Context(), []string{"restore", "--from", dir, "--to", t.TempDir()}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "not a whole backup") {
		t.Errorf("a restore from a data directory = %v; want it refused as no backup", err)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	notEmpty := t.TempDir()
	if err := os.WriteFile(filepath.Join(notEmpty, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(t.Context(), []string{"restore", "--from", backupDir, "--to", notEmpty}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("a restore into a non-empty directory = %v; want it refused", err)
	}
	out.Reset()
	if err := run(t.Context(), []string{"restore", "--from", backupDir, "--to", restored}, &out, &errOut); err != nil {
		t.Fatalf("restore: %v\n%s", err, out.String())
	}
	t.Logf("restore: %s", out.String())

	// What the backup holds: the project in flight, and the clips of the
	// done one, opened with the server's key (the default key file).
	master, _, err := masterkey.Resolve("", "", restored)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), restored, store.WithMasterKey(master))
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.GetProject(t.Context(), inFlight)
	if err != nil {
		t.Fatal(err)
	}
	if p.Stage != apitypes.StageRender && p.Stage != apitypes.StageUpload {
		t.Fatalf("project %s was %s at the backup; the test wants it rendering", inFlight, p.Stage)
	}
	t.Logf("in flight at the backup: %s", p.Stage)
	if !p.LeaseUntil.IsZero() {
		t.Errorf("the restored project keeps the backup's lease until %s; restore ends it, so the copy queues the run at once", p.LeaseUntil)
	}
	clips, err := st.ListClips(t.Context(), done, 0, 100)
	if err != nil || len(clips) == 0 {
		t.Fatalf("clips of %s in the backup: %d, %v", done, len(clips), err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	c2 := startServer(t, restored)
	served, err := c2.ListExportableClips(t.Context(), client.ClipFilter{ProjectID: done})
	if err != nil || len(served) != len(clips) {
		t.Fatalf("clips served after the restore: %d, %v; want the backup's %d", len(served), err, len(clips))
	}
	for _, clip := range served {
		for _, addr := range []string{clip.URIForExport, clip.URIForPreview} {
			name := addr[strings.LastIndex(addr, "/")+1 : strings.Index(addr, "?")]
			want, err := os.ReadFile(filepath.Join(backupDir, "media", done, name))
			if err != nil {
				t.Fatal(err)
			}
			got := fetch(t, addr)
			if !bytes.Equal(got, want) {
				t.Errorf("%s served %d bytes, want the backup's %d byte for byte", name, len(got), len(want))
			}
		}
	}
	// The render cut by the backup runs again in the restored copy, whose
	// clips are then served.
	waitInProcess(t, c2, inFlight)
	resumed, err := c2.ListExportableClips(t.Context(), client.ClipFilter{ProjectID: inFlight})
	if err != nil || len(resumed) == 0 {
		t.Fatalf("clips of the project rendering at the backup, after the restore: %d, %v", len(resumed), err)
	}
	for _, clip := range resumed {
		if got := fetch(t, clip.URIForExport); len(got) < 8 || !bytes.Equal(got[4:8], []byte("ftyp")) {
			t.Errorf("%s: %d bytes that are no MP4", clip.URIForExport, len(got))
		}
	}
}

// waitStage polls project id until it is at stage, and fails the test if
// it ends first.
func waitStage(t *testing.T, c *client.Client, id string, stage apitypes.Stage) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		p, err := c.GetProject(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Stage == stage {
			return
		}
		if p.Stage.Terminal() {
			t.Fatalf("project %s ended %s before it was seen at %s", id, p.Stage, stage)
		}
	}
	t.Fatalf("project %s did not reach %s in 3 minutes", id, stage)
}

// fetch GETs addr and returns the body of its 200; with a key, as that
// key's caller (Authorization: Bearer).
func fetch(t *testing.T, addr string, key ...string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range key {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("GET %s: %d %v %s", addr, resp.StatusCode, err, body)
	}
	return body
}

// TestBackupCommandKeepsTheKeyApart: `clipperd backup` of an installation
// whose key file an older clipperd made in its data directory leaves the
// key out and says where it is and how to move it; `clipperd restore` on a
// machine without the key refuses, naming --master-key-file, and restores
// with it; the restored copy serves with the key given the same way.
func TestBackupCommandKeepsTheKeyApart(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	legacy := filepath.Join(dir, masterkey.DefaultFile)
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"keys", "create", "--data", dir, "--org", "org-a", "--user", "ann", "--master-key-file", legacy}, &out, &errOut); err != nil {
		t.Fatalf("keys create: %v %s", err, errOut.String())
	}
	words := strings.Fields(out.String())
	apiKey := words[len(words)-1]
	// An older installation: the server and commands find its key file
	// without a flag (the server seals its media secret with it).
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(t.Context(), []string{"keys", "list", "--data", dir}, &out, &errOut); err != nil || !strings.Contains(out.String(), "org-a") {
		t.Fatalf("keys list of the older installation: %v\n%s", err, out.String())
	}

	backupDir := filepath.Join(t.TempDir(), "backup")
	out.Reset()
	if err := run(t.Context(), []string{"backup", "--data", dir, "--to", backupDir}, &out, &errOut); err != nil {
		t.Fatalf("backup: %v\n%s", err, out.String())
	}
	for _, want := range []string{"the master key is not in the backup", "it is " + legacy, "keep a copy of it apart", "mv " + legacy} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("backup output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(backupDir, masterkey.DefaultFile)); !os.IsNotExist(err) {
		t.Fatalf("the backup holds the key file: %v", err)
	}

	// Another machine: no key there.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	restored := filepath.Join(t.TempDir(), "restored")
	err = run(t.Context(), []string{"restore", "--from", backupDir, "--to", restored}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "--master-key-file") || !strings.Contains(err.Error(), masterkey.Env) {
		t.Fatalf("restore without the key = %v; want a refusal naming --master-key-file and %s", err, masterkey.Env)
	}
	if entries, _ := os.ReadDir(restored); len(entries) != 0 {
		t.Errorf("a refused restore left %d entries", len(entries))
	}
	wrong := filepath.Join(t.TempDir(), "wrong.key")
	if _, err := masterkey.Load(wrong); err != nil {
		t.Fatal(err)
	}
	err = run(t.Context(), []string{"restore", "--from", backupDir, "--to", restored, "--master-key-file", wrong}, &out, &errOut)
	if !errors.Is(err, masterkey.ErrWrongKey) || !strings.Contains(err.Error(), "left empty for another try") {
		t.Fatalf("restore with another key = %v; want ErrWrongKey, the directory emptied", err)
	}
	out.Reset()
	if err := run(t.Context(), []string{"restore", "--from", backupDir, "--to", restored, "--master-key-file", legacy}, &out, &errOut); err != nil {
		t.Fatalf("restore with the key: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "--master-key-file "+legacy) {
		t.Errorf("restore output does not say how to serve with the key:\n%s", out.String())
	}
	srv, err = server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: restored, MasterKeyFile: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/api/collections?q=mine", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the API key on the restored copy: %d, want 200", resp.StatusCode)
	}
}
