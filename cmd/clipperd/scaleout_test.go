package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/outbound/webhooktest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
	"github.com/minio/minio-go/v7"
)

// The scale-out installation of issue 17 as real processes: one PostgreSQL
// database, one MinIO bucket, an API-only node (`clipperd serve --workers
// 0`) and worker nodes (`clipperd worker`), each with a data directory of
// its own (scratch and uploads in progress only). The kill test and the
// throughput benchmark below run on it.

// cluster is one scale-out installation for a test or benchmark.
type cluster struct {
	tb        testing.TB
	bin       string
	dir       string // the nodes' data directories and logs
	database  string // postgres://...
	minio     *miniotest.Server
	bucket    string
	media     string          // s3://bucket/clipperd?...
	key       string          // the development key of the API node
	masterKey string          // CLIPPERD_MASTER_KEY of every process
	uploads   map[string]bool // the keys of the uploads made
	nice      int             // the niceness of the scheduling group of each process, 0: none of its own
	asr       string          // --asr of each process: none (newCluster's) unless a benchmark sets another
	clipLen   [2]float64      // the clip lengths, in seconds, the projects ask for (curationPref.clipDurations)
	api       *node
	client    *client.Client
}

// mediaPrefix is where the cluster's media are in its bucket.
const mediaPrefix = "clipperd"

// node is one clipperd process of a cluster.
type node struct {
	name string
	cmd  *exec.Cmd
	log  string // path of its stdout and stderr
	addr string // the API's address (the API node only)

	done    chan struct{} // closed when the process has exited
	waitErr error         // its exit, once done
}

// newCluster starts PostgreSQL's database, the bucket and the API node.
// Without ffmpeg, PostgreSQL or MinIO tb is skipped (failed in CI).
func newCluster(tb testing.TB) *cluster {
	tb.Helper()
	toolexectest.RequireMedia(tb)
	toolexectest.RequireTools(tb, "minio")
	_, masterKey := masterkey.Generate()
	c := &cluster{tb: tb, dir: tb.TempDir(), key: "scaleout-key-of-thirty-two-characters", masterKey: masterKey, uploads: map[string]bool{},
		asr: "none", clipLen: [2]float64{8, 15}}
	c.database = storetest.PostgresURL(tb)
	c.minio = miniotest.Start(tb)
	c.bucket = c.minio.NewBucket(tb)
	c.media = c.minio.URL(c.bucket, mediaPrefix)
	c.bin = filepath.Join(tb.TempDir(), "clipperd")
	if out, err := exec.CommandContext(context.Background(), "go", "build", "-o", c.bin, ".").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	tb.Cleanup(c.dumpLogsOnFailure)

	c.api = c.start("api", -1, "serve", "--listen", "127.0.0.1:0", "--workers", "0",
		"--rate-limit", "6000", "--max-concurrent", "16", "--monthly-credits", "100000", "--metrics-listen", "off")
	c.api.addr = c.waitFor(c.api, "clipperd listening", "/healthz")
	cl, err := client.New(client.Config{BaseURL: "http://" + c.api.addr, APIKey: c.key, RequestsPerMinute: 6000, MaxConcurrentProjects: 16})
	if err != nil {
		tb.Fatal(err)
	}
	c.client = cl
	return c
}

// startWorker starts `clipperd worker` and waits until it serves its
// metrics and says it started; cpu >= 0 pins it (and the ffmpeg it starts) to that core with
// taskset.
func (c *cluster) startWorker(name string, cpu int, extra ...string) *node {
	c.tb.Helper()
	n := c.start(name, cpu, append([]string{"worker", "--public-url", "http://" + c.api.addr, "--metrics-listen", "127.0.0.1:0"}, extra...)...)
	c.waitFor(n, "metrics listening", "/metrics")
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(n.logText(), `msg="clipperd worker started"`); time.Sleep(50 * time.Millisecond) {
		if n.exited() || time.Now().After(deadline) {
			c.tb.Fatalf("%s did not start:\n%s", n.name, n.logText())
		}
	}
	return n
}

// start runs the clipperd command args on the cluster's database and media,
// with a data directory and a log of its own; cpu >= 0 pins it. With the
// cluster's nice set it runs in a session of its own at that niceness.
func (c *cluster) start(name string, cpu int, args ...string) *node {
	c.tb.Helper()
	args = append([]string{c.bin}, append(args, "--data", filepath.Join(c.dir, name), "--database", c.database, "--media", c.media,
		"--asr", c.asr, "--allow-private-webhooks")...)
	if cpu >= 0 {
		toolexectest.RequireTools(c.tb, "taskset")
		args = append([]string{"taskset", "-c", fmt.Sprint(cpu)}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	// A process group of its own, as a service manager starts it, so a
	// test can signal the node's whole group (group).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.nice != 0 {
		// A session of its own is a scheduling group of its own (Linux's
		// autogroup), whose niceness weighs it against the other sessions;
		// it is a process group of its own too.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	// Every process of an installation starts with the same master key,
	// as the guide says: the API node seals the key a worker signs
	// webhooks with.
	cmd.Env = append(os.Environ(), apiKeyEnv+"="+c.key, masterkey.Env+"="+c.masterKey,
		"AWS_ACCESS_KEY_ID="+c.minio.AccessKey, "AWS_SECRET_ACCESS_KEY="+c.minio.SecretKey, "AWS_SESSION_TOKEN=", "AWS_REGION=us-east-1")
	n := &node{name: name, cmd: cmd, log: filepath.Join(c.dir, name+".log")}
	logFile, err := os.OpenFile(n.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		c.tb.Fatal(err)
	}
	c.tb.Cleanup(func() { _ = logFile.Close() })
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		c.tb.Fatalf("start %s: %v", name, err)
	}
	n.done = make(chan struct{})
	go func() { n.waitErr = cmd.Wait(); close(n.done) }()
	if c.nice != 0 {
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/autogroup", cmd.Process.Pid), []byte(fmt.Sprint(c.nice)), 0); err != nil {
			c.tb.Fatalf("niceness %d for %s: %v", c.nice, name, err)
		}
	}
	c.tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = n.wait() })
	return n
}

// waitFor waits until n's log says msg with the address it listens on and
// that address answers path with 200; it returns the address.
func (c *cluster) waitFor(n *node, msg, path string) string {
	c.tb.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if addr := listenedAt(n.logText(), msg); addr != "" {
			if resp, err := http.Get("http://" + addr + path); err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return addr
				}
			}
		}
		if n.exited() || time.Now().After(deadline) {
			c.tb.Fatalf("%s did not start (%q at an address answering %s):\n%s", n.name, msg, path, n.logText())
		}
	}
}

// upload puts a generated talk of length into the cluster and returns its
// upload id.
func (c *cluster) upload(length time.Duration) string {
	c.tb.Helper()
	return c.uploadFile(c.generate(testvideo.Options{Duration: length}))
}

// generate makes a talk (testvideo.Generate) and returns its path.
func (c *cluster) generate(opts testvideo.Options) string {
	c.tb.Helper()
	src := filepath.Join(c.tb.TempDir(), "source.mp4")
	if err := testvideo.Generate(context.Background(), src, opts); err != nil {
		c.tb.Fatal(err)
	}
	return src
}

// uploadFile puts the video src into the cluster and returns its upload id.
func (c *cluster) uploadFile(src string) string {
	c.tb.Helper()
	id, err := c.client.UploadFile(context.Background(), src)
	if err != nil {
		c.tb.Fatal(err)
	}
	c.uploads[blob.UploadKey(id)] = true
	return id
}

// createProjects creates n projects of upload, each with a webhook to hook
// when it concludes ("" for none).
func (c *cluster) createProjects(upload string, n int, hook string) []string {
	c.tb.Helper()
	var ids []string
	for range n {
		req := apitypes.CreateProjectRequest{
			VideoURL:     upload,
			CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{c.clipLen}},
			RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait},
		}
		if hook != "" {
			req.ConclusionActions = []apitypes.ConclusionAction{{Type: apitypes.ActionWebhook, URL: hook}}
		}
		p, err := c.client.CreateProject(context.Background(), req)
		if err != nil {
			c.tb.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	return ids
}

// waitComplete polls the projects until every one is COMPLETE and returns
// them, failing after limit. A STALLED project is waited for too: a stall
// that is retried (an interrupted run) ends COMPLETE.
func (c *cluster) waitComplete(ids []string, limit time.Duration) map[string]*apitypes.Project {
	c.tb.Helper()
	done := map[string]*apitypes.Project{}
	last := map[string]apitypes.Stage{}
	for deadline := time.Now().Add(limit); len(done) < len(ids); time.Sleep(250 * time.Millisecond) {
		for _, id := range ids {
			if done[id] != nil {
				continue
			}
			p, err := c.client.GetProject(context.Background(), id)
			if err != nil {
				c.tb.Fatal(err)
			}
			if last[id] = p.Stage; p.Stage == apitypes.StageComplete {
				done[id] = p
			}
		}
		if time.Now().After(deadline) {
			c.tb.Fatalf("%d of %d projects COMPLETE after %s; stages %v", len(done), len(ids), limit, last)
		}
	}
	return done
}

// dumpLogsOnFailure logs the end of every node's log when the test failed.
func (c *cluster) dumpLogsOnFailure() {
	if !c.tb.Failed() {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(c.dir, "*.log"))
	for _, path := range logs {
		data, _ := os.ReadFile(path)
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		c.tb.Logf("--- %s (last lines) ---\n%s", filepath.Base(path), strings.Join(lines[max(0, len(lines)-60):], "\n"))
	}
}

func (n *node) logText() string {
	data, _ := os.ReadFile(n.log)
	return string(data)
}

// wait waits for the process to exit and returns how it did.
func (n *node) wait() error {
	<-n.done
	return n.waitErr
}

func (n *node) exited() bool {
	select {
	case <-n.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (n *node) kill(tb testing.TB) {
	tb.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		tb.Fatal(err)
	}
	_ = n.wait()
}

// stop sends SIGTERM and waits for a clean exit.
func (n *node) stop(tb testing.TB) {
	tb.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	if err := n.wait(); err != nil {
		tb.Errorf("%s after SIGTERM: %v", n.name, err)
	}
}

// stageLine is the pipeline's log line of a stage change.
var stageLine = regexp.MustCompile(`msg="project stage".*? project=(\S+) from=(\S+) to=(\S+)`)

// rendering is the project n's log shows entering RENDER and not leaving
// it, "" when there is none.
func (n *node) rendering() string {
	in := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(n.logText()))
	for sc.Scan() {
		m := stageLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		project, to := m[1], m[3]
		// Any later change of the project is its leaving RENDER.
		if to == string(apitypes.StageRender) {
			in[project] = true
		} else {
			delete(in, project)
		}
	}
	for p := range in {
		return p
	}
	return ""
}

// ran reports whether n's log shows a stage change of project.
func (n *node) ran(project string) bool {
	for _, m := range stageLine.FindAllStringSubmatch(n.logText(), -1) {
		if m[1] == project {
			return true
		}
	}
	return false
}

// TestScaleOutKill9WorkerWhileRendering runs 1 API-only node and 2 worker
// nodes on PostgreSQL and MinIO, creates 6 projects, and kills a worker
// with SIGKILL while it renders one of them. The surviving worker takes
// the killed run over once its lease ends (no replacement is started): all
// 6 projects end COMPLETE, each charged once, each clip made once (listed
// once, one export and one preview in the bucket, no other object), and
// each conclusion webhook delivered once.
func TestScaleOutKill9WorkerWhileRendering(t *testing.T) {
	// Alone it mostly waits on its processes: run beside the others like it.
	t.Parallel()
	c := newCluster(t)
	hooks := webhooktest.New(t, 0)
	workers := []*node{c.startWorker("worker-1", -1), c.startWorker("worker-2", -1)}
	ids := c.createProjects(c.upload(40*time.Second), 6, hooks.URL+"/done")

	killed, project := killWhileRendering(t, workers, 4*time.Minute)
	survivor := workers[0]
	if survivor == killed {
		survivor = workers[1]
	}
	t.Logf("killed %s while it rendered %s", killed.name, project)
	killedAt := time.Now()

	done := c.waitComplete(ids, 6*time.Minute)
	interrupted := 0
	for _, p := range done {
		if p.StallCount != nil && *p.StallCount > 0 {
			interrupted++
		}
	}
	t.Logf("all %d COMPLETE %s after the kill; %d of them interrupted by it and taken over by %s",
		len(done), time.Since(killedAt).Round(100*time.Millisecond), interrupted, survivor.name)
	if p := done[project]; p.StallCount == nil || *p.StallCount < 1 {
		t.Errorf("project %s: stallCount %v, want the interrupted run counted", project, p.StallCount)
	}
	if !survivor.ran(project) {
		t.Errorf("%s never ran %s, the project of the killed worker", survivor.name, project)
	}
	// Wait for the deliveries, then stop the last worker, so any second one
	// would be counted.
	waitWebhooks(t, hooks, len(ids))
	survivor.stop(t)
	c.checkOnce(t, done, hooks)
}

// killWhileRendering waits until one of workers logs a project entering
// RENDER and kills that worker, returning it and the project.
func killWhileRendering(t *testing.T, workers []*node, limit time.Duration) (*node, string) {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, w := range workers {
			if project := w.rendering(); project != "" {
				w.kill(t)
				return w, project
			}
		}
	}
	t.Fatalf("no worker rendered within %s", limit)
	return nil, ""
}

// openStore opens the cluster's database with its master key; the caller
// closes it.
func (c *cluster) openStore(t testing.TB) *store.Store {
	t.Helper()
	key, err := masterkey.Parse(c.masterKey)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), c.database, store.WithMasterKey(key))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// waitWebhooks waits until hooks has the conclusion webhooks of n projects:
// deliveries go out after the change that concludes a project.
func waitWebhooks(t *testing.T, hooks *webhooktest.Receiver, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); len(webhooksByProject(t, hooks)) < n; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("conclusion webhooks of %d of %d projects after 2 minutes", len(webhooksByProject(t, hooks)), n)
		}
	}
}

// checkOnce checks that each of the finished projects was charged once,
// made its clips once and had its conclusion webhook delivered once.
func (c *cluster) checkOnce(t *testing.T, done map[string]*apitypes.Project, hooks *webhooktest.Receiver) {
	t.Helper()
	st := c.openStore(t)
	defer st.Close()
	var charged int64
	clipIDs := map[string]bool{}
	all := c.objects(t)
	for key := range all {
		// The installation's marker is the one object of no project.
		known := c.uploads[key] || key == blob.InstallationMarkerKey
		for id := range done {
			known = known || strings.HasPrefix(key, blob.MediaPrefix(id))
		}
		if !known {
			t.Errorf("object %s in the bucket is neither an upload, a project's media nor the installation's marker", key)
		}
	}
	for id := range done {
		p, err := st.GetProject(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if want := quota.ProjectCredits(p.SourceDurationSec); p.CreditsCharged != want {
			t.Errorf("project %s charged %d credits, want %d", id, p.CreditsCharged, want)
		}
		charged += p.CreditsCharged

		clips, err := c.client.ListExportableClips(t.Context(), client.ClipFilter{ProjectID: id})
		if err != nil || len(clips) == 0 {
			t.Fatalf("clips of %s: %d, %v", id, len(clips), err)
		}
		// Each listed clip has its export and preview, maybe captions;
		// the bucket holds nothing else but the source.
		want, may := map[string]bool{"source.mp4": true}, map[string]bool{}
		for _, clip := range clips {
			if clipIDs[clip.ID] {
				t.Errorf("clip %s listed twice", clip.ID)
			}
			clipIDs[clip.ID] = true
			want[clip.CurationID+".mp4"], want[clip.CurationID+".preview.mp4"] = true, true
			may[clip.CurationID+".srt"], may[clip.CurationID+".vtt"] = true, true
		}
		got := map[string]bool{}
		for key := range all {
			if name, ok := strings.CutPrefix(key, blob.MediaPrefix(id)); ok {
				got[name] = true
			}
		}
		for name := range want {
			if !got[name] {
				t.Errorf("project %s: %s is not in the bucket", id, name)
			}
		}
		for name := range got {
			if !want[name] && !may[name] {
				t.Errorf("project %s: %s in the bucket belongs to no listed clip", id, name)
			}
		}
	}
	if used, err := st.CreditsUsed(t.Context(), server.DevOrgID); err != nil || used != charged {
		t.Errorf("credits used this month %d (%v), want %d, the sum of the projects' charges", used, err, charged)
	}

	perProject := webhooksByProject(t, hooks)
	for id := range done {
		if got := perProject[id]; len(got) != 1 {
			t.Errorf("project %s: %d conclusion webhooks, want one", id, len(got))
		}
	}
	for _, got := range perProject {
		for _, r := range got {
			if stage := decodeWebhook(t, r).Stage; stage != apitypes.StageComplete || !r.SignedWith(c.key) {
				t.Errorf("webhook %s (signed with the key: %v), want a signed COMPLETE", r.Body, r.SignedWith(c.key))
			}
		}
	}
}

// webhooksByProject are the webhooks hooks received, by project.
func webhooksByProject(t *testing.T, hooks *webhooktest.Receiver) map[string][]webhooktest.Request {
	t.Helper()
	out := map[string][]webhooktest.Request{}
	for _, r := range hooks.Requests() {
		id := decodeWebhook(t, r).ProjectID
		out[id] = append(out[id], r)
	}
	return out
}

func decodeWebhook(t *testing.T, r webhooktest.Request) apitypes.WebhookPayload {
	t.Helper()
	var payload apitypes.WebhookPayload
	if err := json.Unmarshal(r.Body, &payload); err != nil {
		t.Fatalf("webhook body %s: %v", r.Body, err)
	}
	return payload
}

// objects are the keys of the objects of the cluster's media.
func (c *cluster) objects(t *testing.T) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	for o := range c.minio.Client.ListObjects(t.Context(), c.bucket, minio.ListObjectsOptions{Prefix: mediaPrefix + "/", Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		keys[strings.TrimPrefix(o.Key, mediaPrefix+"/")] = true
	}
	return keys
}
