package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// Issue 27: SIGTERM to clipperd's whole process group while it renders, as
// `timeout` or a shell's Ctrl-C send it. ffmpeg is in a
// group of its own, so the signal reaches clipperd alone, which stops
// gracefully: its grace (1 ms here, so the run cannot finish) ends, the
// run is cut short, its ffmpeg killed (nothing is left running), and the
// project handed back: QUEUED at once, one interruption, no failure counted
// and no retry waited for. Before, ffmpeg died of the signal first and the
// stage counted as a failure (STALLED, a retry after 30 s). The next start
// completes the project.
func TestGroupSIGTERMWhileRenderingHandsBack(t *testing.T) {
	// Alone it mostly waits on its processes: run beside the others like it.
	t.Parallel()
	bin := buildClipperd(t)
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	addr, key := freeAddr(t), "group-stop-key-0123456789abcdef012345"
	master, masterText := masterkey.Generate()
	keyFile := filepath.Join(root, "master.key")
	if err := os.WriteFile(keyFile, []byte(masterText), 0o600); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "src.mp4")
	if err := testvideo.Generate(t.Context(), src, testvideo.Options{Duration: 40 * time.Second}); err != nil {
		t.Fatal(err)
	}

	// A group of its own, as a service manager starts it.
	first := startProcessWith(t, &syscall.SysProcAttr{Setpgid: true}, bin, addr, dir, key,
		"--master-key-file", keyFile, "--shutdown-grace", "1ms", "--asr", "none")
	c, p := createFromFile(t, "http://"+addr, key, src, apitypes.CreateProjectRequest{
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{8, 20}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait},
	})
	ffmpeg := renderingFFmpeg(t, c.GetProject, p.ID, first.Process.Pid)
	if pgid, err := syscall.Getpgid(ffmpeg); err != nil || pgid != ffmpeg {
		t.Fatalf("ffmpeg %d in process group %d (%v), want a group of its own", ffmpeg, pgid, err)
	}

	if err := syscall.Kill(-first.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("clipperd after its group's SIGTERM: %v, want status 0", err)
	}
	toolexectest.WaitGone(t, ffmpeg, 20*time.Second, "the render's ffmpeg")

	st, err := store.Open(t.Context(), store.Location("", dir), store.WithMasterKey(master))
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.GetProject(t.Context(), p.ID)
	_ = st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got.Stage != apitypes.StageQueued || got.FailureStalls != 0 || got.StallCount == nil || *got.StallCount != 1 || !got.RetryAt.IsZero() {
		t.Fatalf("after the stop: %s (error %v), failureStalls %d, stallCount %v, retryAt %v; want QUEUED (handed back), one interruption, no failure, no retry",
			got.Stage, got.Error, got.FailureStalls, got.StallCount, got.RetryAt)
	}

	startProcess(t, bin, addr, dir, key, "--master-key-file", keyFile, "--asr", "none")
	done := waitComplete(t, c, p.ID, 4*time.Minute, filepath.Join(root, "data.log"))
	if done.StallCount == nil || *done.StallCount != 1 {
		t.Errorf("stallCount %v after the restart, want the one interruption", done.StallCount)
	}
}

// renderingFFmpeg waits until project id is in RENDER with an ffmpeg child
// of process parent running, and returns that ffmpeg's pid.
func renderingFFmpeg(t *testing.T, get func(context.Context, string) (*apitypes.Project, error), id string, parent int) int {
	t.Helper()
	for deadline := time.Now().Add(4 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		p, err := get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		switch p.Stage {
		case apitypes.StageRender:
			if pid := childNamed(parent, "ffmpeg"); pid != 0 {
				return pid
			}
		case apitypes.StageComplete, apitypes.StageStalled, apitypes.StageUpload:
			t.Fatalf("project reached %s before its render could be stopped", p.Stage)
		}
	}
	t.Fatalf("project %s never rendered with ffmpeg running", id)
	return 0
}

// childNamed is the pid of a running child of parent whose command is name,
// 0 when there is none (Linux: /proc).
func childNamed(parent int, name string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at its ')'.
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 || s[open+1:end] != name || fields[1] != strconv.Itoa(parent) || !toolexectest.Running(pid) {
			continue
		}
		return pid
	}
	return 0
}
