package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
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

// freeAddr is a port free a moment ago, for the tests that must know the
// address before clipperd starts or keep it across a restart (the client's
// base URL, the media addresses a project signed); another test may take it
// in between, so tests that need neither pass "127.0.0.1:0" instead.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startProcess runs `clipperd serve --listen addr` and waits for /healthz
// at the address its log says it listens on (addr may be "127.0.0.1:0").
func startProcess(t *testing.T, bin, addr, dir, key string, more ...string) *exec.Cmd {
	t.Helper()
	return startProcessWith(t, nil, bin, addr, dir, key, more...)
}

// startProcessWith is startProcess with the child's attributes attr (nil:
// the default ones).
func startProcessWith(t *testing.T, attr *syscall.SysProcAttr, bin, addr, dir, key string, more ...string) *exec.Cmd {
	t.Helper()
	args := append([]string{"serve", "--listen", addr, "--data", dir, "--rate-limit", "600", "--metrics-listen", "off"}, more...)
	cmd, logPath := launchWith(t, attr, bin, filepath.Join(dir, "..", filepath.Base(dir)+".log"), key, args...)
	deadline := time.Now().Add(storetest.EventuallyBound) // a hang guard, as generous as the suite's
	for {
		log, _ := os.ReadFile(logPath)
		if bound := listenedAt(string(log), "clipperd listening"); bound != "" {
			resp, err := http.Get("http://" + bound + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return cmd
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("clipperd did not become healthy:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// launch starts clipperd with args, its output appended to logPath, and
// kills it at cleanup unless it has exited.
func launch(t *testing.T, bin, logPath, key string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	return launchWith(t, nil, bin, logPath, key, args...)
}

// launchWith is launch with the child's attributes attr (nil: the default
// ones).
func launchWith(t *testing.T, attr *syscall.SysProcAttr, bin, logPath, key string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = attr
	cmd.Env = append(os.Environ(), "CLIPPERD_API_KEY="+key)
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = logFile.Close() })
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd, logPath
}

func TestKill9MidPipelineThenRestartCompletes(t *testing.T) {
	// Alone it mostly waits on its processes: run beside the others like it.
	t.Parallel()
	bin := buildClipperd(t)
	dir := filepath.Join(t.TempDir(), "data")
	addr, key := freeAddr(t), "kill-test-key-0123456789abcdef012345"
	src := filepath.Join(t.TempDir(), "src.mp4")
	if err := testvideo.Generate(t.Context(), src, testvideo.Options{Duration: 40 * time.Second}); err != nil {
		t.Fatal(err)
	}

	first := startProcess(t, bin, addr, dir, key)
	c, p := createFromFile(t, "http://"+addr, key, src, apitypes.CreateProjectRequest{
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{8, 20}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait},
	})

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
	// The killed run's lease (30 s) ends, then the new process takes it up.
	done := waitComplete(t, c, p.ID, 3*time.Minute, "")
	if done.StallCount == nil || *done.StallCount < 1 {
		t.Errorf("stallCount = %v, want >= 1 after an interrupted run", done.StallCount)
	}
	downloadFirstClip(t, c, p.ID, "http://"+addr)
}

// createFromFile uploads src through the API at base with key and creates
// a project of it from req (its videoUrl the upload).
func createFromFile(t *testing.T, base, key, src string, req apitypes.CreateProjectRequest) (*client.Client, *apitypes.Project) {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: base, APIKey: key, RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	if req.VideoURL, err = c.UploadFile(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateProject(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return c, p
}

// waitComplete waits up to limit for project id to end, and fails the test
// unless it is COMPLETE; logPath, when set, is shown with a failure.
func waitComplete(t *testing.T, c *client.Client, id string, limit time.Duration, logPath string) *apitypes.Project {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	done, err := c.WaitForProject(ctx, id, client.WaitOptions{PollInterval: 200 * time.Millisecond, MaxPollInterval: time.Second})
	if err == nil && done.Stage != apitypes.StageComplete {
		err = fmt.Errorf("stage %s, error %v; want COMPLETE", done.Stage, done.Error)
	}
	if err != nil {
		out, _ := os.ReadFile(logPath)
		t.Fatalf("project %s: %v\n%s", id, err, out)
	}
	return done
}

// downloadFirstClip checks that the project's first clip has its address
// under base and downloads from it.
func downloadFirstClip(t *testing.T, c *client.Client, id, base string) {
	t.Helper()
	clips, err := c.ListExportableClips(t.Context(), client.ClipFilter{ProjectID: id})
	if err != nil || len(clips) == 0 {
		t.Fatalf("clips: %d, %v", len(clips), err)
	}
	if !strings.HasPrefix(clips[0].URIForExport, base+"/media/") {
		t.Errorf("clip address %s, want it under %s", clips[0].URIForExport, base)
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
	cmd := startProcess(t, bin, "127.0.0.1:0", dir, "term-key-0123456789abcdef0123456789abcd")
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
	case <-time.After(storetest.EventuallyBound): // a hang guard
		t.Fatalf("clipperd did not stop within %s of SIGTERM", storetest.EventuallyBound)
	}
}

// TestKill9BetweenSchedulingAndFiringFiresOnce schedules a post, kills the
// process before the schedule's time, and restarts it after: the schedule
// fires once, into one published post.
func TestKill9BetweenSchedulingAndFiringFiresOnce(t *testing.T) {
	// Alone it mostly waits on its processes: run beside the others like it.
	t.Parallel()
	bin := buildClipperd(t)
	dir := filepath.Join(t.TempDir(), "data")
	addr, key := freeAddr(t), "publish-kill-key-0123456789abcdef0123"
	projectID, clipID := seedRenderedClip(t, dir, "http://"+addr)
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"accounts", "connect", "--data", dir, "--org", server.DevOrgID,
		"--platform", "TWITTER", "--name", "Clipper", "--publish-to", "dir"}, &out, &errOut); err != nil {
		t.Fatalf("accounts connect: %v (stderr %s)", err, errOut.String())
	}
	words := strings.Fields(out.String())
	account := words[len(words)-1]

	first := startProcess(t, bin, addr, dir, key)
	c, err := client.New(client.Config{BaseURL: "http://" + addr, APIKey: key, RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	// A schedule a few seconds ahead of the process's clock, which a test
	// cannot move: when the request took longer than the lead on a loaded
	// machine, the time is past and refused, so it is tried again further
	// ahead.
	var publishAt time.Time
	var scheduleID string
	for lead := 3 * time.Second; ; lead *= 2 {
		publishAt = time.Now().Add(lead).UTC()
		scheduleID, err = c.CreatePublishSchedule(t.Context(), apitypes.PublishScheduleRequest{
			PostTaskRequest: apitypes.PostTaskRequest{ProjectID: projectID, ClipID: clipID, PostAccountID: account,
				PostDetail: apitypes.PostDetail{Title: "Survives kill -9"}},
			PublishAt: publishAt.Format(time.RFC3339Nano),
		})
		var apiErr *client.APIError
		if err == nil || lead >= time.Minute || !errors.As(err, &apiErr) || !strings.Contains(apiErr.ErrorMessage, "must be in the future") {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = first.Process.Wait()

	time.Sleep(time.Until(publishAt)) // the schedule comes due while no process runs
	second := startProcess(t, bin, addr, dir, key)
	posts := filepath.Join(dir, "published", account)
	deadline := time.Now().Add(60 * time.Second)
	var postID string
	for postID == "" {
		entries, _ := os.ReadDir(posts)
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(posts, e.Name(), "post.json")); err == nil {
				postID = e.Name()
			}
		}
		if postID == "" && time.Now().After(deadline) {
			t.Fatal("the schedule was not published after the restart")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Stop cleanly, then read what the process recorded.
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("clipperd after SIGTERM: %v", err)
	}
	st := openData(t, dir)
	defer st.Close()
	sc, err := st.GetSchedule(t.Context(), scheduleID)
	if err != nil || sc.Status != store.ScheduleFired || sc.PostID != postID {
		t.Fatalf("schedule = %+v %v, want fired into post %s", sc, err, postID)
	}
	if p, err := st.GetPost(t.Context(), postID); err != nil || p.Status != store.PostPublished || p.CreditsCharged != 1 {
		t.Fatalf("post = %+v %v, want published and charged once", p, err)
	}
	if used, _ := st.CreditsUsed(t.Context(), server.DevOrgID); used != 1 {
		t.Fatalf("credits used = %d, want 1", used)
	}
	if entries, _ := os.ReadDir(posts); len(entries) != 1 {
		t.Fatalf("published %v, want one post", entries)
	}
	data, err := os.ReadFile(filepath.Join(posts, postID, "post.json"))
	if err != nil || !strings.Contains(string(data), `"scheduleId": "`+scheduleID+`"`) {
		t.Fatalf("post.json = %s %v, want schedule %s", data, err, scheduleID)
	}
	if clip, err := os.ReadFile(filepath.Join(posts, postID, "clip.mp4")); err != nil || string(clip) != "the export render of "+projectID+"."+clipID {
		t.Fatalf("clip.mp4 = %q %v, want the export render", clip, err)
	}
}

// seedRenderedClip records, in the data directory of a stopped server, a
// complete project of the dev org with one clip and its export render file,
// where the pipeline leaves them.
func seedRenderedClip(t *testing.T, dir, publicURL string) (projectID, clipID string) {
	t.Helper()
	st := openData(t, dir)
	defer st.Close()
	now := time.Now()
	p := &store.Project{ID: store.NewID("prj_"), OrgID: server.DevOrgID, UserID: server.DevUserID,
		Stage: apitypes.StageComplete, CreatedAt: now, UpdatedAt: now}
	if err := st.CreateProject(t.Context(), p, store.Admission{}); err != nil {
		t.Fatal(err)
	}
	clip := store.Clip{ID: p.ID + ".c01", CurationID: "c01", URIForExport: publicURL + "/media/" + p.ID + "/c01.mp4"}
	if err := st.ReplaceClips(t.Context(), p.ID, server.DevOrgID, []store.Clip{clip}); err != nil {
		t.Fatal(err)
	}
	render := filepath.Join(dir, "media", p.ID, "c01.mp4")
	if err := os.MkdirAll(filepath.Dir(render), 0o755); err != nil {
		t.Fatal(err)
	}
	// The bytes stand for a render: publishing copies them as they are.
	if err := os.WriteFile(render, []byte("the export render of "+clip.ID), 0o644); err != nil {
		t.Fatal(err)
	}
	return p.ID, "c01"
}
