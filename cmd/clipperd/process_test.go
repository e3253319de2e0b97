package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// These tests run clipperd as a real process, the way users and the demo do,
// to check what only a process shows: SIGKILL in the middle of a pipeline
// loses nothing, and SIGTERM stops cleanly.

func buildClipperd(t *testing.T) string {
	t.Helper()
	toolexectest.RequireMedia(t)
	bin := filepath.Join(t.TempDir(), "clipperd")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startProcess runs `clipperd serve` and waits for /healthz.
func startProcess(t *testing.T, bin, addr, dir, key string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--listen", addr, "--data", dir, "--rate-limit", "600")
	cmd.Env = append(os.Environ(), "CLIPPERD_API_KEY="+key)
	logFile, err := os.OpenFile(filepath.Join(dir, "..", filepath.Base(dir)+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = logFile.Close() })
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return cmd
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("clipperd did not become healthy: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestKill9MidPipelineThenRestartCompletes(t *testing.T) {
	bin := buildClipperd(t)
	dir := filepath.Join(t.TempDir(), "data")
	addr, key := freeAddr(t), "kill-test-key"
	src := filepath.Join(t.TempDir(), "src.mp4")
	if err := testvideo.Generate(t.Context(), src, testvideo.Options{Duration: 40 * time.Second}); err != nil {
		t.Fatal(err)
	}

	first := startProcess(t, bin, addr, dir, key)
	c, err := client.New(client.Config{BaseURL: "http://" + addr, APIKey: key, RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	uploadID, err := c.UploadFile(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateProject(t.Context(), apitypes.CreateProjectRequest{
		VideoURL:     uploadID,
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{8, 20}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait},
	})
	if err != nil {
		t.Fatal(err)
	}

	// Kill as soon as the project is past IMPORT: work is on disk and in flight.
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, err := c.GetProject(t.Context(), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Stage == apitypes.StageCurate || got.Stage == apitypes.StageRefine || got.Stage == apitypes.StageRender {
			break
		}
		if got.Stage == apitypes.StageComplete || got.Stage == apitypes.StageStalled || time.Now().After(deadline) {
			t.Fatalf("project reached %s before it could be killed mid-pipeline", got.Stage)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = first.Process.Wait()

	startProcess(t, bin, addr, dir, key)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	done, err := c.WaitForProject(ctx, p.ID, client.WaitOptions{PollInterval: 200 * time.Millisecond, MaxPollInterval: time.Second})
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if done.StallCount == nil || *done.StallCount < 1 {
		t.Errorf("stallCount = %v, want >= 1 after an interrupted run", done.StallCount)
	}
	clips, err := c.ListExportableClips(t.Context(), client.ClipFilter{ProjectID: p.ID})
	if err != nil || len(clips) == 0 {
		t.Fatalf("clips after restart: %d, %v", len(clips), err)
	}
	resp, err := http.Get(clips[0].URIForExport)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("clip download: %d", resp.StatusCode)
	}
}

func TestSIGTERMStopsCleanly(t *testing.T) {
	bin := buildClipperd(t)
	dir := filepath.Join(t.TempDir(), "data")
	cmd := startProcess(t, bin, freeAddr(t), dir, "term-key")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("clipperd exited with %v after SIGTERM, want status 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("clipperd did not stop within 30 s of SIGTERM")
	}
}
