package browsertest

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/gallerybrowser"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// The keys of the two organizations of the browser tests: the gallery of
// ownerKey has the finished project, otherKey's organization sees nothing.
const (
	ownerKey = "ck_test_gallery_owner"
	otherKey = "ck_test_gallery_other"
)

// hang bounds each wait on the browser: long enough for a loaded machine,
// there only so a broken page fails the test instead of hanging it.
const hang = 2 * time.Minute

// gallery is one clipperd with one finished project, shared by the subtests.
type gallery struct {
	base    string
	project string
	video   string // the source of the projects
	browser context.Context
}

// TestGalleryInBrowser drives the gallery with a real headless Chromium: one
// clipperd and one finished project of a short generated talk for all of it.
func TestGalleryInBrowser(t *testing.T) {
	toolexectest.RequireTools(t, gallerybrowser.Binary)
	toolexectest.RequireMedia(t)
	g := startGallery(t)

	t.Run("LoginOpensProjectAndClipPlays", g.loginOpensProjectAndClipPlays)
	t.Run("WrongKeyStaysOnLogin", g.wrongKeyStaysOnLogin)
	t.Run("OtherOrgProjectIsNotFound", g.otherOrgProjectIsNotFound)
	t.Run("LogoutEndsSession", g.logoutEndsSession)
	t.Run("PhoneViewport", g.phoneViewport)
	t.Run("ProgressUpdatesWithoutReload", g.progressUpdatesWithoutReload)
}

func startGallery(t *testing.T) *gallery {
	t.Helper()
	dir := t.TempDir()
	video := filepath.Join(dir, "talk.mp4")
	if err := testvideo.Generate(t.Context(), video, testvideo.Options{Duration: 16 * time.Second}); err != nil {
		t.Fatalf("generating the source video: %v", err)
	}
	data := filepath.Join(dir, "data")
	// Keys exist before the server starts; the owner's is the server's own.
	st, err := store.Open(t.Context(), data)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureKey(t.Context(), otherKey, "org-other", "user-other"); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: data, APIKey: ownerKey,
		Limits: quota.Limits{RateLimit: 100000}})
	if err != nil {
		t.Fatalf("starting clipperd: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing clipperd: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	p, err := gallerybrowser.FinishProject(ctx, srv.URL(), ownerKey, video, apitypes.CreateProjectRequest{
		UploadedVideoAttr: &apitypes.UploadedVideoAttr{Title: "Browser test talk"},
		CurationPref:      &apitypes.CurationPref{ClipDurations: [][2]float64{{4, 8}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	browser, closeBrowser, err := gallerybrowser.Start(context.WithoutCancel(t.Context()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeBrowser)
	return &gallery{base: srv.URL(), project: p.ID, video: video, browser: browser}
}

// session opens a tab with cookies of its own, its steps bounded by hang.
func (g *gallery) session(t *testing.T) context.Context {
	t.Helper()
	tab, closeTab := gallerybrowser.NewSession(g.browser)
	t.Cleanup(closeTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	ctx, cancel := context.WithTimeout(tab, hang)
	t.Cleanup(cancel)
	return ctx
}

// login logs in through the form and fails the test unless the gallery opens.
func (g *gallery) login(t *testing.T, ctx context.Context, key string) {
	t.Helper()
	resp, err := gallerybrowser.Login(ctx, g.base, key)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusOK || !strings.HasSuffix(resp.URL, "/ui/") {
		t.Fatalf("login answered %d at %s, want 200 at /ui/", resp.Status, resp.URL)
	}
	if ok, err := gallerybrowser.HasSession(ctx, g.base); err != nil || !ok {
		t.Fatalf("no %s cookie after logging in (err %v)", gallerybrowser.SessionCookie, err)
	}
}

func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// firstVideo is the JavaScript expression of the first clip's player.
const firstVideo = `document.querySelector('article.clip[data-clip-id] video.clip-preview')`

func (g *gallery) loginOpensProjectAndClipPlays(t *testing.T) {
	ctx := g.session(t)
	g.login(t, ctx, ownerKey)

	// The project is opened from the list, as a person would.
	link := chromedp.CSS(`a[href="/ui/projects/` + g.project + `"]`)
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(link))
	if err != nil {
		t.Fatalf("opening the project from the list: %v", err)
	}
	if resp.Status != http.StatusOK {
		t.Fatalf("project page answered %d", resp.Status)
	}
	if h1 := run(t, ctx, "reading the heading", chromedp.Evaluate[string](`document.querySelector('h1').textContent`)); !strings.Contains(h1, "Browser test talk") {
		t.Errorf("the project page's heading is %q, want the upload's title", h1)
	}
	clips := run(t, ctx, "counting clips", chromedp.Evaluate[int](`document.querySelectorAll('article.clip[data-clip-id]').length`))
	if clips == 0 {
		t.Fatal("the project page shows no clip")
	}
	attrs := run(t, ctx, "reading the player", chromedp.Attributes(chromedp.CSS(`article.clip video.clip-preview`)))
	for _, a := range []string{"controls", "playsinline", "src"} {
		if _, ok := attrs[a]; !ok {
			t.Errorf("the clip's video has no %s attribute: %v", a, attrs)
		}
	}
	if attrs["preload"] != "metadata" {
		t.Errorf("the clip's video preloads %q, want metadata (a page of clips must not download them all)", attrs["preload"])
	}

	// Loaded: the metadata (duration, size) arrived and nothing failed.
	do(t, ctx, "waiting for the clip's metadata", chromedp.Poll[chromedp.Void](
		firstVideo+`.readyState >= HTMLMediaElement.HAVE_METADATA || `+firstVideo+`.error`,
		chromedp.WithPollingTimeout(hang)))
	if msg := run(t, ctx, "reading the player's error", chromedp.Evaluate[string](
		`(e => e ? 'code ' + e.code + ': ' + e.message : '')(`+firstVideo+`.error)`)); msg != "" {
		t.Fatalf("the clip's video failed to load: %s", msg)
	}
	// Plays: muted (no autoplay policy stands in the way), its time moves.
	do(t, ctx, "starting the clip", chromedp.Evaluate[chromedp.Void](
		`(v => { v.muted = true; v.play().catch(e => { v.dataset.playError = String(e) }) })(`+firstVideo+`)`))
	do(t, ctx, "waiting for the clip to play", chromedp.Poll[chromedp.Void](
		`(v => v.currentTime > 0 && v.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA || v.dataset.playError)(`+firstVideo+`)`,
		chromedp.WithPollingTimeout(hang)))
	if msg := run(t, ctx, "reading play()'s outcome", chromedp.Evaluate[string](firstVideo+`.dataset.playError || ''`)); msg != "" {
		t.Fatalf("play() failed: %s", msg)
	}

	shot := run(t, ctx, "taking a screenshot", chromedp.FullScreenshot(100))
	path := filepath.Join(t.TempDir(), "project.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot %s is not a PNG: %v", path, err)
	}
	if cfg.Width == 0 || cfg.Height == 0 {
		t.Fatalf("the screenshot %s is empty: %dx%d", path, cfg.Width, cfg.Height)
	}
}

func (g *gallery) wrongKeyStaysOnLogin(t *testing.T) {
	ctx := g.session(t)
	resp, err := gallerybrowser.Login(ctx, g.base, "ck_test_not_a_key")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusUnauthorized {
		t.Errorf("a wrong key answered %d, want 401", resp.Status)
	}
	if loc := run(t, ctx, "reading the address", chromedp.Location()); !strings.HasSuffix(loc, "/ui/login") {
		t.Errorf("a wrong key led to %s, want the login page", loc)
	}
	if msg := run(t, ctx, "reading the error", chromedp.Text(chromedp.CSS(`p.error`))); strings.TrimSpace(msg) == "" {
		t.Error("the login page shows an empty error")
	}
	do(t, ctx, "finding the form again", chromedp.WaitVisible(chromedp.CSS(`#login input[name="api_key"]`)))
	if ok, err := gallerybrowser.HasSession(ctx, g.base); err != nil || ok {
		t.Errorf("a wrong key left a %s cookie (err %v)", gallerybrowser.SessionCookie, err)
	}
}

func (g *gallery) otherOrgProjectIsNotFound(t *testing.T) {
	ctx := g.session(t)
	g.login(t, ctx, otherKey)
	if n := run(t, ctx, "reading the list", chromedp.Evaluate[int](
		`document.querySelectorAll('a[href="/ui/projects/`+g.project+`"]').length`)); n != 0 {
		t.Errorf("another organization's list links the project %d times", n)
	}
	resp := run(t, ctx, "opening the project", chromedp.NavigateResponse(g.base+"/ui/projects/"+g.project))
	if resp.Status != http.StatusNotFound {
		t.Errorf("another organization's project answered %d, want 404", resp.Status)
	}
	if n := run(t, ctx, "counting clips", chromedp.Evaluate[int](`document.querySelectorAll('article.clip, video').length`)); n != 0 {
		t.Errorf("the 404 page shows %d clips or players", n)
	}
}

func (g *gallery) logoutEndsSession(t *testing.T) {
	ctx := g.session(t)
	g.login(t, ctx, ownerKey)
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`form[action="/ui/logout"] button, form[action="/ui/logout"] [type="submit"]`))); err != nil {
		t.Fatalf("logging out: %v", err)
	}
	if ok, err := gallerybrowser.HasSession(ctx, g.base); err != nil || ok {
		t.Errorf("the %s cookie outlived the logout (err %v)", gallerybrowser.SessionCookie, err)
	}
	do(t, ctx, "opening the project again", chromedp.Navigate(g.base+"/ui/projects/"+g.project))
	if loc := run(t, ctx, "reading the address", chromedp.Location()); !strings.Contains(loc, "/ui/login") {
		t.Errorf("after logging out the project page led to %s, want the login page", loc)
	}
}

func (g *gallery) phoneViewport(t *testing.T) {
	ctx := g.session(t)
	do(t, ctx, "emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
	g.login(t, ctx, ownerKey)
	do(t, ctx, "opening the project", chromedp.Navigate(g.base+"/ui/projects/"+g.project),
		chromedp.WaitVisible(chromedp.CSS(`article.clip video.clip-preview`)))
	sizes := run(t, ctx, "measuring", chromedp.Evaluate[map[string]float64](`({
		viewport: window.innerWidth,
		video: `+firstVideo+`.getBoundingClientRect().width,
		page: document.documentElement.scrollWidth})`))
	if sizes["viewport"] != 390 {
		t.Fatalf("viewport %v px wide, want 390", sizes["viewport"])
	}
	if sizes["video"] == 0 || sizes["video"] > sizes["viewport"] {
		t.Errorf("the clip's video is %v px wide in a %v px viewport", sizes["video"], sizes["viewport"])
	}
	if sizes["page"] > sizes["viewport"] {
		t.Errorf("the page is %v px wide in a %v px viewport: it scrolls sideways", sizes["page"], sizes["viewport"])
	}
}

// progressUpdatesWithoutReload: a project created just before the list is
// opened is shown in flight, then COMPLETE with its clips, by the progress
// script alone: a mark set on the page survives, so it was not reloaded.
func (g *gallery) progressUpdatesWithoutReload(t *testing.T) {
	p, err := gallerybrowser.StartProject(t.Context(), g.base, ownerKey, g.video, apitypes.CreateProjectRequest{
		UploadedVideoAttr: &apitypes.UploadedVideoAttr{Title: "Talk in flight"},
		CurationPref:      &apitypes.CurationPref{ClipDurations: [][2]float64{{4, 8}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := g.session(t)
	g.login(t, ctx, ownerKey)
	row := `document.querySelector('li.project[data-project-id="` + p.ID + `"]')`
	if state := run(t, ctx, "marking the page", chromedp.Evaluate[string](
		`window.notReloaded = true; (r => r ? r.dataset.inFlight + ' ' + r.querySelector('.stage').textContent : 'no row')(`+row+`)`)); !strings.HasPrefix(state, "true ") {
		t.Fatalf("the new project's row is %q, want it in flight", state)
	}
	do(t, ctx, "waiting for the row to show the project COMPLETE", chromedp.Poll[chromedp.Void](
		`(r => r.dataset.inFlight === 'false' && r.querySelector('.stage').textContent === 'COMPLETE')(`+row+`)`,
		chromedp.WithPollingTimeout(hang)))
	got := run(t, ctx, "reading the row", chromedp.Evaluate[string](
		`(r => String(window.notReloaded === true) + ' ' + r.querySelector('progress').hidden + ' ' + r.querySelector('.clip-count').textContent)(`+row+`)`))
	if got == "" || !strings.HasPrefix(got, "true true ") || strings.HasSuffix(got, " 0") {
		t.Errorf("after COMPLETE: not reloaded, bar hidden, clip count = %q, want \"true true N\" with N > 0", got)
	}
}
