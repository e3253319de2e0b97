package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// TestAPIOnlyServeAndWorker: `serve --workers 0` answers the API and queues
// the project but runs nothing; a `worker` process on the same PostgreSQL
// database and media directory runs it to COMPLETE, whose clip the API
// serves; SIGTERM stops the worker cleanly.
func TestAPIOnlyServeAndWorker(t *testing.T) {
	bin := buildClipperd(t)
	db := storetest.PostgresURL(t)
	root := t.TempDir()
	dir := filepath.Join(root, "data") // one box: the processes share it
	key := "api-only-key"
	src := filepath.Join(root, "src.mp4")
	if err := testvideo.Generate(t.Context(), src, testvideo.Options{Duration: 20 * time.Second, Width: 320, Height: 240}); err != nil {
		t.Fatal(err)
	}

	apiNode := startProcess(t, bin, "127.0.0.1:0", dir, key, "--database", db, "--workers", "0")
	log, _ := os.ReadFile(filepath.Join(root, "data.log"))
	base := "http://" + listenedAt(string(log), "clipperd listening")
	c, err := client.New(client.Config{BaseURL: base, APIKey: key, RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	uploadID, err := c.UploadFile(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{
		VideoURL:     uploadID,
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{5, 10}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetProject(t.Context(), p.ID); err != nil || got.Stage != apitypes.StageQueued {
		t.Fatalf("with no worker running the project is %v (%v), want QUEUED", got.Stage, err)
	}

	worker, workerLog := launch(t, bin, filepath.Join(root, "worker.log"), "",
		"worker", "--data", dir, "--database", db, "--public-url", base, "--workers", "1", "--metrics-listen", "off")
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	done, err := c.WaitForProject(ctx, p.ID, client.WaitOptions{PollInterval: 200 * time.Millisecond, MaxPollInterval: time.Second})
	if err != nil {
		out, _ := os.ReadFile(workerLog)
		t.Fatalf("waiting for the worker: %v\nworker log:\n%s", err, out)
	}
	if done.Stage != apitypes.StageComplete {
		t.Fatalf("stage %s, error %v; want COMPLETE", done.Stage, done.Error)
	}
	clips, err := c.ListExportableClips(t.Context(), client.ClipFilter{ProjectID: p.ID})
	if err != nil || len(clips) == 0 {
		t.Fatalf("clips: %d, %v", len(clips), err)
	}
	if !strings.HasPrefix(clips[0].URIForExport, base+"/media/") {
		t.Errorf("clip address %s, want it under the API's %s", clips[0].URIForExport, base)
	}
	resp, err := http.Get(clips[0].URIForExport)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("clip download from the API node: %d", resp.StatusCode)
	}
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
