package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// TestKeysCreateWhileServing runs `clipperd keys create` in-process against
// the data directory of a running server; the printed key (the last word)
// works at once.
func TestKeysCreateWhileServing(t *testing.T) {
	dir := t.TempDir()
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	key := createKey(t, dir, "org-acme", "user-ann")
	if code := apiStatus(t, srv.URL(), key); code != http.StatusOK {
		t.Errorf("the new key got %d, want 200", code)
	}
}

// createKey runs `clipperd keys create` and returns the key it printed
// (the last word).
func createKey(t *testing.T, dir, org, user string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"keys", "create", "--data", dir, "--org", org, "--user", user}, &out, &errOut); err != nil {
		t.Fatalf("keys create: %v (stderr %s)", err, errOut.String())
	}
	words := strings.Fields(out.String())
	if len(words) == 0 {
		t.Fatal("keys create printed nothing")
	}
	return words[len(words)-1]
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		{},
		{"frobnicate"},
		{"keys"},
		{"keys", "create", "--data", t.TempDir(), "--user", "u"},
		{"serve", "--rate-limit", "0"},
		{"serve", "--max-collections", "0"},
		{"serve", "--log-level", "loud"},
		{"serve", "--idle-timeout", "0s"},
		{"serve", "--upload-progress-timeout", "-1s"},
		{"serve", "--max-conns-per-ip", "-1"},
		{"serve", "--no-such-flag"},
		{"serve", "--media-url-ttl", "30s"},
		{"serve", "--public-media-url-ttl", "0"},
		{"serve", "--gallery-session-ttl", "10s"},
		{"serve", "--trusted-proxies", "10.0.0.0/8,proxy.local"},
		{"serve", "--media", "gs://clips"},
		{"serve", "--media", "s3://clips?endpoint=minio:9000/path"},
		{"serve", "--media", "s3://clips?sekure=false"},
		{"serve", "--encode-preset", "fastest"},
		{"worker", "--data", t.TempDir(), "--public-url", "http://127.0.0.1:8787", "--metrics-listen", "off", "--encode-preset", "Medium"},
		{"keys", "revoke", "--data", t.TempDir()},
		{"keys", "revoke", "--data", t.TempDir(), "a", "b"},
		{"media-key"},
		{"media-key", "show"},
		{"sample"},
		{"templates"},
		{"templates", "create", "--data", t.TempDir(), "--org", "o"},
		{"templates", "create", "--data", t.TempDir(), "--org", "o", "--name", "n", "--aspect", "diagonal"},
		{"sample", "--out", "x.mp4", "--width", "33"},
		{"accounts", "connect", "--data", t.TempDir(), "--org", "o", "--platform", "YOUTUBE", "--name", "n", "--publish-to", "s3"},
		{"accounts", "connect", "--data", t.TempDir(), "--org", "o", "--platform", "YOUTUBE", "--name", "n", "--publish-to", "webhook:ftp://x/y"},
	}
	for _, args := range cases {
		var out, errOut bytes.Buffer
		if err := run(t.Context(), args, &out, &errOut); !errors.Is(err, errUsage) {
			t.Errorf("run %q: error %v, want a usage error", args, err)
		}
	}
}

// TestSample writes a short sample video and checks its frame size with ffprobe
// and that it says which voice spoke (festival where installed).
func TestSample(t *testing.T) {
	toolexectest.RequireMedia(t)
	out := filepath.Join(t.TempDir(), "sample.mp4")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"sample", "--out", out, "--duration", "12s", "--width", "320", "--height", "240"}, &stdout, &stderr); err != nil {
		t.Fatalf("sample: %v (stderr %s)", err, stderr.String())
	}
	probe, err := exec.CommandContext(t.Context(), "ffprobe", "-v", "error", "-select_streams", "v:0",
		"-show_entries", "stream=width,height", "-of", "csv=p=0:s=x", out).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	if got := strings.TrimSpace(string(probe)); got != "320x240" {
		t.Errorf("sample is %s, want 320x240", got)
	}
	voice := testvideo.VoiceEspeak
	if testvideo.FestivalAvailable() {
		voice = testvideo.VoiceFestival
	}
	if want := "spoken by " + voice; !strings.Contains(stdout.String(), want) {
		t.Errorf("sample said %q, want it to mention %q", stdout.String(), want)
	}
}

// TestAccountsConnectWhileServing records a social account for the dev org of
// a running server; GET /api/social-accounts lists it at once.
func TestAccountsConnectWhileServing(t *testing.T) {
	dir := t.TempDir()
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir, APIKey: "dev-key"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	var out, errOut bytes.Buffer
	err = run(t.Context(), []string{"accounts", "connect", "--data", dir, "--org", server.DevOrgID, "--platform", "youtube", "--name", "Clipper Channel"}, &out, &errOut)
	if err != nil {
		t.Fatalf("accounts connect: %v (stderr %s)", err, errOut.String())
	}
	words := strings.Fields(out.String())
	id := words[len(words)-1]

	var errOut2 bytes.Buffer
	if err := run(t.Context(), []string{"accounts", "connect", "--data", dir, "--org", "o", "--platform", "MYSPACE", "--name", "x"}, &out, &errOut2); err == nil || !strings.Contains(err.Error(), "MYSPACE") {
		t.Errorf("unknown platform: %v", err)
	}

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/api/social-accounts?q=mine", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer dev-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data []struct {
			PostAccountID string `json:"postAccountId"`
			Platform      string `json:"platform"`
			ExtUserName   string `json:"extUserName"`
			ExtUserID     string `json:"extUserId"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if len(body.Data) != 1 || body.Data[0].PostAccountID != id || body.Data[0].Platform != "YOUTUBE" ||
		body.Data[0].ExtUserName != "Clipper Channel" || body.Data[0].ExtUserID == "" {
		t.Fatalf("social accounts = %+v, want the one connected (%s)", body.Data, id)
	}
}

// TestAccountsConnectPublishTo records the destination of --publish-to;
// connecting the account again changes it.
func TestAccountsConnectPublishTo(t *testing.T) {
	dir := t.TempDir()
	connect := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append([]string{"accounts", "connect", "--data", dir, "--org", "o", "--platform", "LINKEDIN", "--name", "n"}, args...)
		if err := run(t.Context(), args, &out, &errOut); err != nil {
			t.Fatalf("accounts connect: %v (stderr %s)", err, errOut.String())
		}
		words := strings.Fields(out.String())
		return words[len(words)-1]
	}
	hooked := connect("--publish-to", "webhook:https://hooks.example/posts")
	plain := connect()
	st := openData(t, dir)
	defer st.Close()
	for id, want := range map[string]string{hooked: "webhook:https://hooks.example/posts", plain: "dir"} {
		if a, err := st.GetSocialAccount(t.Context(), "o", id); err != nil || a.PublishTo != want {
			t.Errorf("account %s: %+v %v, want it to publish to %s", id, a, err, want)
		}
	}
}

// TestAccountsListAndDisconnect lists a running server's accounts, then
// disconnects one: its pending schedule is cancelled, the API no longer
// lists it, and the other account and its schedule stay.
func TestAccountsListAndDisconnect(t *testing.T) {
	dir := t.TempDir()
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir, APIKey: "dev-key"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cli := func(args ...string) (string, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(t.Context(), append(args, "--data", dir), &out, &errOut)
		return out.String(), err
	}
	connect := func(platform, name string) string {
		t.Helper()
		out, err := cli("accounts", "connect", "--org", server.DevOrgID, "--platform", platform, "--name", name)
		if err != nil {
			t.Fatalf("accounts connect: %v", err)
		}
		words := strings.Fields(out)
		return words[len(words)-1]
	}
	youtube, linkedin := connect("YOUTUBE", "Clipper Channel"), connect("LINKEDIN", "Clipper Page")
	st := openData(t, dir)
	defer st.Close()
	schedule := func(account string) string {
		t.Helper()
		sc, err := st.CreateSchedule(t.Context(), server.DevOrgID, store.PostContent{ProjectID: "prj", ClipID: "c01",
			PostAccountID: account, Title: "Later", Privacy: "public"}, time.Now().Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return sc.ID
	}
	ytSchedule, liSchedule := schedule(youtube), schedule(linkedin)

	out, err := cli("accounts", "list", "--org", server.DevOrgID)
	if err != nil {
		t.Fatalf("accounts list: %v", err)
	}
	for _, want := range []string{youtube, "YOUTUBE", "Clipper Channel", linkedin, "LINKEDIN", "dir"} {
		if !strings.Contains(out, want) {
			t.Errorf("accounts list does not show %q:\n%s", want, out)
		}
	}

	out, err = cli("accounts", "disconnect", "--org", server.DevOrgID, "--account", youtube)
	if err != nil || !strings.Contains(out, "cancelled 1 pending publish schedule") {
		t.Fatalf("accounts disconnect: %q, %v", out, err)
	}
	if _, err := cli("accounts", "disconnect", "--org", server.DevOrgID, "--account", youtube); err == nil ||
		!strings.Contains(err.Error(), "has no connected account "+youtube) {
		t.Errorf("disconnecting again: %v, want an error naming the account", err)
	}
	for id, want := range map[string]string{ytSchedule: store.ScheduleCancelled, liSchedule: store.SchedulePending} {
		if sc, err := st.GetSchedule(t.Context(), id); err != nil || sc.Status != want {
			t.Errorf("schedule %s: %+v, %v; want %s", id, sc, err, want)
		}
	}
	body := fetch(t, srv.URL()+"/api/social-accounts?q=mine", "dev-key")
	if strings.Contains(string(body), youtube) || !strings.Contains(string(body), linkedin) {
		t.Errorf("social accounts after the disconnect: %s; want %s alone", body, linkedin)
	}
}

// TestKeysRevoke revokes a key of a running server's data directory: the
// API refuses it at once and its gallery session ends; the other key works.
func TestKeysRevoke(t *testing.T) {
	dir := t.TempDir()
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir, APIKey: "dev-key"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	key := createKey(t, dir, "org-acme", "ann")
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := browser.PostForm(srv.URL()+"/ui/login", url.Values{"api_key": {key}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("gallery login: %d", resp.StatusCode)
	}
	if code := galleryStatus(t, browser, srv.URL()); code != http.StatusOK {
		t.Fatalf("gallery with the session: %d", code)
	}

	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"keys", "revoke", "--data", dir, key}, &out, &errOut); err != nil {
		t.Fatalf("keys revoke: %v (stderr %s)", err, errOut.String())
	}
	if !strings.Contains(out.String(), "org org-acme user ann") || strings.Contains(out.String(), key) {
		t.Errorf("keys revoke said %q", out.String())
	}
	for k, want := range map[string]int{key: http.StatusUnauthorized, "dev-key": http.StatusOK} {
		if code := apiStatus(t, srv.URL(), k); code != want {
			t.Errorf("API with key %s after the revocation: %d, want %d", k, code, want)
		}
	}
	if code := galleryStatus(t, browser, srv.URL()); code != http.StatusSeeOther {
		t.Errorf("gallery with the revoked key's session: %d, want 303 to the login", code)
	}
	if err := run(t.Context(), []string{"keys", "revoke", key, "--data", dir}, &out, &errOut); err == nil || errors.Is(err, errUsage) {
		t.Errorf("revoking again: %v, want a no-such-key error", err)
	}
	if err := run(t.Context(), []string{"keys", "revoke", "--data", dir}, &out, &errOut); !errors.Is(err, errUsage) {
		t.Errorf("revoke without a key: %v, want a usage error", err)
	}
}

func galleryStatus(t *testing.T, cl *http.Client, base string) int {
	t.Helper()
	resp, err := cl.Get(base + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func apiStatus(t *testing.T, base, key string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/api/brand-templates?q=mine", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestParseCIDRs(t *testing.T) {
	got, err := parseCIDRs("10.0.0.0/8, 192.0.2.7,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("fd00::/8")}
	if !slices.Equal(got, want) {
		t.Errorf("parseCIDRs: %v, want %v", got, want)
	}
}

// TestServeRefusesAShortAPIKey: a CLIPPERD_API_KEY under 32 characters is a
// usage error naming the variable and the rule, before anything starts.
func TestServeRefusesAShortAPIKey(t *testing.T) {
	t.Setenv(apiKeyEnv, "dev-key")
	var stderr bytes.Buffer
	err := run(t.Context(), []string{"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(), "--metrics-listen", "off"}, io.Discard, &stderr)
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "CLIPPERD_API_KEY is 7 characters; it must be at least 32") {
		t.Fatalf("serve with a 7-character key: %v, want a usage error naming %s and the rule", err, apiKeyEnv)
	}
}

// TestKeysListShowsPrefixesOnly: keys list shows each key's prefix, org and
// user, never a key; keys revoke takes the listed prefix.
func TestKeysListShowsPrefixesOnly(t *testing.T) {
	dir := t.TempDir()
	key := createKey(t, dir, "org-acme", "ann")
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"keys", "list", "--data", dir}, &out, &errOut); err != nil {
		t.Fatalf("keys list: %v (stderr %s)", err, errOut.String())
	}
	prefix := key[:10]
	if strings.Contains(out.String(), key) || !strings.Contains(out.String(), prefix+"...") || !strings.Contains(out.String(), "org-acme") {
		t.Fatalf("keys list printed %q; want the prefix %s..., never the key", out.String(), prefix)
	}
	out.Reset()
	if err := run(t.Context(), []string{"keys", "revoke", "--data", dir, prefix}, &out, &errOut); err != nil {
		t.Fatalf("keys revoke by prefix: %v", err)
	}
	out.Reset()
	if err := run(t.Context(), []string{"keys", "list", "--data", dir}, &out, &errOut); err != nil || strings.Contains(out.String(), prefix) {
		t.Errorf("keys list after the revocation: %q, %v", out.String(), err)
	}
}
