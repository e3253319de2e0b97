package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// TestAPIOnlyServeAndWorker: `serve --workers 0` answers the API and queues
// the project but runs nothing; a `worker` process on the same PostgreSQL
// database and media directory runs it to COMPLETE, whose clip the API
// serves; SIGTERM stops the worker cleanly.
func TestAPIOnlyServeAndWorker(t *testing.T) {
	// Alone it mostly waits on its processes: run beside the others like it.
	t.Parallel()
	bin := buildClipperd(t)
	db := storetest.PostgresURL(t)
	root := t.TempDir()
	dir := filepath.Join(root, "data") // one box: the processes share it
	key := "api-only-key-0123456789abcdef0123456789"
	src := filepath.Join(root, "src.mp4")
	if err := testvideo.Generate(t.Context(), src, testvideo.Options{Duration: 20 * time.Second, Width: 320, Height: 240}); err != nil {
		t.Fatal(err)
	}

	// Processes sharing a PostgreSQL database are given one master key.
	_, master := masterkey.Generate()
	keyFile := filepath.Join(root, "master.key")
	if err := os.WriteFile(keyFile, []byte(master), 0o600); err != nil {
		t.Fatal(err)
	}
	apiNode := startProcess(t, bin, "127.0.0.1:0", dir, key, "--database", db, "--workers", "0", "--master-key-file", keyFile)
	log, _ := os.ReadFile(filepath.Join(root, "data.log"))
	base := "http://" + listenedAt(string(log), "clipperd listening")
	c, p := createFromFile(t, base, key, src, apitypes.CreateProjectRequest{
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{5, 10}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
	})
	if got, err := c.GetProject(t.Context(), p.ID); err != nil || got.Stage != apitypes.StageQueued {
		t.Fatalf("with no worker running the project is %v (%v), want QUEUED", got.Stage, err)
	}

	worker, workerLog := launch(t, bin, filepath.Join(root, "worker.log"), "",
		"worker", "--data", dir, "--database", db, "--public-url", base, "--workers", "1", "--metrics-listen", "off", "--master-key-file", keyFile)
	waitComplete(t, c, p.ID, 4*time.Minute, workerLog)
	downloadFirstClip(t, c, p.ID, base) // served by the API node
	apiLog, _ := os.ReadFile(filepath.Join(root, "data.log"))
	if strings.Contains(string(apiLog), `msg="project stage"`) {
		t.Errorf("the API-only node ran a pipeline stage:\n%s", apiLog)
	}

	if err := worker.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := worker.Wait(); err != nil {
		t.Errorf("worker after SIGTERM: %v, want status 0", err)
	}
	if err := apiNode.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := apiNode.Wait(); err != nil {
		t.Errorf("API node after SIGTERM: %v, want status 0", err)
	}
}

// A worker without --public-url, or with no workers, is a usage error
// naming the flag; so is serve with a negative --workers.
func TestWorkerFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"worker", "--data", dir}, "--public-url"},
		{[]string{"worker", "--data", dir, "--public-url", "http://127.0.0.1:8787", "--workers", "0"}, "--workers"},
		{[]string{"serve", "--data", dir, "--workers", "-1"}, "--workers"},
		{[]string{"worker", "--data", dir, "--public-url", "http://127.0.0.1:8787", "--pipeline-lease", "10ms"}, "--pipeline-lease"},
	} {
		var out, errOut bytes.Buffer
		err := run(t.Context(), c.args, &out, &errOut)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%v: %v, want a usage error naming %s", c.args, err, c.flag)
		}
	}
}
