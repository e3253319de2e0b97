package acctest

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/datadirtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// Acceptance tests run Terraform against one in-process clipperd, started on
// first use and shared by every test of the binary.

const accAPIKey = "acc-test-key"

// accEnv is what the acceptance tests need from the shared setup.
type accEnv struct {
	URL     string // base URL of the in-process clipperd
	DataDir string // its data directory (--data): the store, DATA/published
	Video   string // a 30 s talking-head test video
	Dir     string // scratch directory removed when the binary exits
}

var acc struct {
	once sync.Once
	env  accEnv
	srv  *server.Server
	err  error
}

// TestMain points the user's configuration directory, where clipperd keeps
// its master key file when given none, at a temporary one: the tests never
// write the real ~/.config.
func TestMain(m *testing.M) {
	config, err := os.MkdirTemp("", "clipper-acc-config-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = os.Setenv("XDG_CONFIG_HOME", config)
	// The tests spend most of their time waiting on Terraform's processes
	// and clipperd's pipeline, not on this process's CPU: run four at once
	// unless -parallel says otherwise (its default is GOMAXPROCS, 2 on CI).
	flag.Parse()
	if !flagGiven("test.parallel") {
		_ = flag.Set("test.parallel", "4")
	}
	code := m.Run()
	_ = os.RemoveAll(config)
	if acc.srv != nil {
		if err := acc.srv.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing clipperd: %v\n", err)
		}
	}
	if acc.env.Dir != "" {
		_ = os.RemoveAll(acc.env.Dir)
	}
	os.Exit(code)
}

// flagGiven reports whether the command line set the flag name.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// testAccSetup skips the test unless TF_ACC is set, then returns the shared
// server and video, starting them on first use.
func testAccSetup(t *testing.T) accEnv {
	t.Helper()
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skipf("acceptance test: set %s=1 to run it", resource.EnvTfAcc)
	}
	toolexectest.RequireMedia(t)
	acc.once.Do(startAccServer)
	if acc.err != nil {
		t.Fatalf("acceptance setup: %v", acc.err)
	}
	return acc.env
}

func startAccServer() {
	dir, err := os.MkdirTemp("", "clipper-acc-")
	if err != nil {
		acc.err = err
		return
	}
	acc.env.Dir = dir
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	video := filepath.Join(dir, "talk.mp4")
	if err := testvideo.Generate(ctx, video, testvideo.Options{Duration: 30 * time.Second, Width: 320, Height: 240}); err != nil {
		acc.err = fmt.Errorf("generating the test video: %w", err)
		return
	}
	dataDir := filepath.Join(dir, "data")
	srv, err := startClipperd(ctx, dataDir, quota.Limits{})
	if err != nil {
		acc.err = err
		return
	}
	acc.srv = srv
	acc.env.URL = srv.URL()
	acc.env.DataDir = dataDir
	acc.env.Video = video
	acc.err = seedSocialAccounts(ctx, dataDir)
}

// startClipperd starts an in-process clipperd on a free port, storing in
// dataDir, with the acceptance tests' API key and limits (zero fields take
// the spec's defaults).
func startClipperd(ctx context.Context, dataDir string, limits quota.Limits) (*server.Server, error) {
	return startClipperdWith(ctx, accServerConfig("127.0.0.1:0", dataDir, limits))
}

// accServerConfig is the configuration startClipperd serves listen with.
func accServerConfig(listen, dataDir string, limits quota.Limits) server.Config {
	// Far above the service's 30/min so that polling never waits on the limiter.
	limits.RateLimit = 600
	return server.Config{
		Listen:              listen,
		DataDir:             dataDir,
		APIKey:              accAPIKey,
		AllowPrivateImports: true,
		Limits:              limits,
		// Every parallel test's Terraform runs and clients come from
		// 127.0.0.1: together they pass a per-address cap meant for one client.
		MaxConnsPerIP: -1,
		// The clips are checked, not their encoding: the fastest preset
		// spends a third of the default's CPU on them.
		EncodePreset: "ultrafast",
	}
}

func startClipperdWith(ctx context.Context, cfg server.Config) (*server.Server, error) {
	srv, err := server.Start(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("starting clipperd: %w", err)
	}
	return srv, nil
}

// accProject is one COMPLETE project made from the shared video through the
// API, once per test binary, for the tests that need existing clips rather
// than a project of their own (collections, clip listings).
var accProject struct {
	once  sync.Once
	id    string
	clips []apitypes.ExportableClip
	err   error
}

// completeProject returns the shared project's id and its clips, rendered
// square, making it on first use. Curation is skipped, so its one clip is the
// whole video.
func (e accEnv) completeProject(t *testing.T) (string, []apitypes.ExportableClip) {
	t.Helper()
	accProject.once.Do(func() {
		c, err := client.New(client.Config{BaseURL: e.URL, APIKey: accAPIKey, RequestsPerMinute: 600})
		if err != nil {
			accProject.err = err
			return
		}
		// Not the asking test's context: the project outlives that test.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		accProject.id, accProject.clips, accProject.err = makeCompleteProject(ctx, c, e.Video)
	})
	if accProject.err != nil {
		t.Fatalf("the shared project: %v", accProject.err)
	}
	return accProject.id, accProject.clips
}

func makeCompleteProject(ctx context.Context, c *client.Client, video string) (string, []apitypes.ExportableClip, error) {
	uploadID, err := c.UploadFile(ctx, video)
	if err != nil {
		return "", nil, err
	}
	created, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{
		VideoURL:     uploadID,
		CurationPref: &apitypes.CurationPref{SkipCurate: new(true)},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectSquare},
	})
	if err != nil {
		return "", nil, err
	}
	if _, err := c.WaitForProject(ctx, created.ID, client.WaitOptions{PollInterval: 300 * time.Millisecond, MaxPollInterval: time.Second}); err != nil {
		return "", nil, err
	}
	clips, err := c.ListExportableClips(ctx, client.ClipFilter{ProjectID: created.ID})
	if err == nil && len(clips) == 0 {
		err = fmt.Errorf("project %s made no clips", created.ID)
	}
	return created.ID, clips, err
}

// accAccounts are the social accounts connected for the acceptance tests'
// organization; clipperd has no OAuth flow, so they go straight to its store,
// as `clipperd accounts connect` does.
var accAccounts = []apitypes.SocialAccount{
	{Platform: "YOUTUBE", ExtUserName: "Clipper Channel", ExtUserProfileLink: "https://www.youtube.com/@clipper"},
	{Platform: "LINKEDIN", ExtUserName: "Clipper Inc", SubAccountID: "urn:li:organization:42"},
}

func seedSocialAccounts(ctx context.Context, dataDir string) error {
	st, err := datadirtest.OpenContext(ctx, dataDir)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, a := range accAccounts {
		if _, err := st.ConnectSocialAccount(ctx, server.DevOrgID, a); err != nil {
			return fmt.Errorf("seeding social accounts: %w", err)
		}
	}
	return nil
}

// testAccProviders serves the provider in-process, polling faster than the
// production defaults so a test spends its time processing, not sleeping.
func testAccProviders() map[string]func() (tfprotov6.ProviderServer, error) {
	return testAccProvidersWith(nil)
}

// testAccProvidersWith is testAccProviders with the clock publish times are
// checked against (nil: the wall clock).
func testAccProvidersWith(now func() time.Time) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"clipper": provider.Server("test",
			provider.WithWait(client.WaitOptions{PollInterval: 300 * time.Millisecond, MaxPollInterval: time.Second}),
			provider.WithClock(now)),
	}
}

// providerBlock configures the provider for the shared clipperd.
func (e accEnv) providerBlock() string {
	return fmt.Sprintf(`
provider "clipper" {
  base_url            = %q
  api_key             = %q
  requests_per_minute = 600
}
`, e.URL, accAPIKey)
}

// apiClient is a client for checks made beside Terraform.
func (e accEnv) apiClient(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: e.URL, APIKey: accAPIKey, RequestsPerMinute: 600})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// proxyTo starts a proxy in front of upstream (the shared clipperd) and
// returns its address. intercept sees each request first and answers it
// itself by returning true: a fault between the provider and the service.
func proxyTo(t *testing.T, upstream string, intercept func(w http.ResponseWriter, r *http.Request) bool) string {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !intercept(w, r) {
			forward.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// writeAPIError answers status with the service's error body.
func writeAPIError(w http.ResponseWriter, status int, name, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"errorName":%q,"errorMessage":%q}`, name, message)
}

// errorText matches an error message however Terraform wraps its lines.
func errorText(msg string) *regexp.Regexp {
	words := strings.Fields(msg)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(strings.Join(words, `\s+`))
}
