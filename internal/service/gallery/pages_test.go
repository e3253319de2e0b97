package gallery

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

var rowLink = regexp.MustCompile(`<a class="title" href="/ui/projects/([^"]+)">`)

func TestProjectsNewestFirstWithTheirState(t *testing.T) {
	e := newEnv(t)
	old := e.project(t, orgA, "Old talk", nil)
	e.clips(t, old, "first", "second")
	msg := "import failed: 404 from videos.example.com"
	stalled := e.project(t, orgA, "Broken talk", func(p *store.Project) {
		p.Stage, p.Error = apitypes.StageStalled, &msg
	})
	running := e.project(t, orgA, "", func(p *store.Project) { p.Stage = apitypes.StageRender })
	e.project(t, orgB, "Not ours", nil)

	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/", c)
	wantStatus(t, rec, http.StatusOK)
	body := rec.Body.String()
	var ids []string
	for _, m := range rowLink.FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	if want := []string{running.ID, stalled.ID, old.ID}; strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v, want newest first %v", ids, want)
	}
	for _, want := range []string{
		`>Old talk</a>`, `<span class="clip-count">2</span> clips`, `<span class="credits">10</span> credits`,
		`<p class="error">` + msg + `</p>`, `>keynote.mp4</a>`, `https://videos.example.com/talks/keynote.mp4`,
		`data-project-id="` + running.ID + `" data-in-flight="true"`, `<progress max="100" value="71">`,
		`<script src="/ui/static/gallery.js" defer></script>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("projects page lacks %s", want)
		}
	}
	if strings.Contains(body, "Not ours") {
		t.Error("the page shows another org's project")
	}
}

func TestProjectsArePaged(t *testing.T) {
	e := newEnv(t)
	var last *store.Project
	for range projectsPerPage + 3 {
		last = e.project(t, orgA, "", nil)
	}
	c := e.login(t, e.keyA)
	first := e.get(t, "/ui/", c).Body.String()
	if n := len(rowLink.FindAllString(first, -1)); n != projectsPerPage {
		t.Fatalf("page 1 has %d rows, want %d", n, projectsPerPage)
	}
	if !strings.Contains(first, "/ui/projects/"+last.ID) || !strings.Contains(first, `<a rel="next" href="/ui/?page=2">`) {
		t.Error("page 1 lacks the newest project or the link to page 2")
	}
	second := e.get(t, "/ui/?page=2", c).Body.String()
	if n := len(rowLink.FindAllString(second, -1)); n != 3 {
		t.Fatalf("page 2 has %d rows, want 3", n)
	}
	wantStatus(t, e.get(t, "/ui/?page=3", c), http.StatusNotFound)
	wantStatus(t, e.get(t, "/ui/?page=x", c), http.StatusNotFound)
}

func TestUserTextIsEscapedEverywhere(t *testing.T) {
	e := newEnv(t)
	const evil = `<script>alert(1)</script>`
	p := e.project(t, orgA, evil, func(p *store.Project) {
		p.CurationPref.CustomPrompt = evil
	})
	clips := e.clips(t, p, evil)
	ctx := context.Background()
	col, err := e.st.CreateCollection(ctx, orgA, evil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.AddCollectionContent(ctx, orgA, col.CollectionID, clips[0].ID); err != nil {
		t.Fatal(err)
	}
	c := e.login(t, e.keyA)
	for _, path := range []string{"/ui/", "/ui/projects/" + p.ID, "/ui/collections"} {
		rec := e.get(t, path, c)
		wantStatus(t, rec, http.StatusOK)
		body := rec.Body.String()
		if strings.Contains(body, evil) {
			t.Errorf("%s carries the script unescaped", path)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s does not show the title escaped:\n%s", path, body)
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t)
	c := e.login(t, e.keyA)
	for path, cookie := range map[string]*http.Cookie{"/ui/": c, "/ui/login": nil, "/ui/collections": c} {
		rec := e.get(t, path, cookie)
		h := rec.Header()
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "media-src 'self' blob:;", "img-src 'self' data:", "script-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP allows inline code: %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", path, h)
		}
		if strings.Contains(rec.Body.String(), "<script>") {
			t.Errorf("%s has an inline script, which the CSP blocks", path)
		}
	}
}

func TestStaticAssetsAreServed(t *testing.T) {
	e := newEnv(t)
	for path, typ := range map[string]string{"/ui/static/gallery.css": "text/css", "/ui/static/gallery.js": "text/javascript"} {
		rec := e.get(t, path, nil)
		wantStatus(t, rec, http.StatusOK)
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), typ) || rec.Body.Len() == 0 {
			t.Errorf("%s: %q, %d bytes", path, rec.Header().Get("Content-Type"), rec.Body.Len())
		}
	}
}

func TestProgressJSON(t *testing.T) {
	e := newEnv(t)
	running := e.project(t, orgA, "", func(p *store.Project) { p.Stage = apitypes.StageCurate })
	done := e.project(t, orgA, "", func(p *store.Project) { p.Stage = apitypes.StageComplete })
	e.clips(t, done, "a", "b", "c")
	theirs := e.project(t, orgB, "", nil)
	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/progress?ids="+url.QueryEscape(strings.Join([]string{running.ID, done.ID, theirs.ID, "nope"}, ",")), c)
	wantStatus(t, rec, http.StatusOK)
	if rec.Header().Get("Cache-Control") != "no-store" || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Errorf("headers %v", rec.Header())
	}
	var got progressAnswer
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	byID := map[string]projectRow{}
	for _, p := range got.Projects {
		byID[p.ID] = p
	}
	if len(byID) != 2 {
		t.Fatalf("progress answered %d projects, want the org's 2: %s", len(byID), rec.Body)
	}
	if r := byID[running.ID]; r.Stage != "CURATE" || !r.InFlight || r.Percent != 42 || r.Clips != 0 || r.Credits != 10 {
		t.Errorf("running project: %+v", r)
	}
	if r := byID[done.ID]; r.Stage != "COMPLETE" || r.InFlight || r.Percent != 100 || r.Clips != 3 {
		t.Errorf("complete project: %+v", r)
	}
	tooMany := strings.TrimSuffix(strings.Repeat("x,", maxProgressIDs+1), ",")
	wantStatus(t, e.get(t, "/ui/progress?ids="+tooMany, c), http.StatusBadRequest)
}

func TestProjectPageShowsClipsWithSignedMedia(t *testing.T) {
	e := newEnv(t)
	on := true
	p := e.project(t, orgA, "Keynote", func(p *store.Project) {
		p.Stage = apitypes.StageComplete
		p.CurationPref.ClipDurations = [][2]float64{{15, 45}}
		p.CurationPref.TopicKeywords = []string{"go", "sqlite"}
		p.RenderPref = &apitypes.RenderPref{LayoutAspectRatio: "portrait", EnableCaption: &on,
			QuickstartConfig: &apitypes.QuickstartConfig{EnableRemoveFillerWords: &on}}
		p.ImportPref = &apitypes.ImportPref{SourceLang: "en"}
	})
	clips := e.clips(t, p, "Opening", "Closing")
	ctx := context.Background()
	col, err := e.st.CreateCollection(ctx, orgA, "Best of", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.AddCollectionContent(ctx, orgA, col.CollectionID, clips[1].ID); err != nil {
		t.Fatal(err)
	}
	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/projects/"+p.ID, c)
	wantStatus(t, rec, http.StatusOK)
	body := html.UnescapeString(rec.Body.String())

	// The addresses are the ones the API hands out: signed by medialink.
	signer := medialink.New(e.st, publicURL, 0, 0, e.clock.now)
	for _, stored := range clips {
		clip := stored.API()
		if err := signer.SignClip(ctx, &clip, p.Visibility); err != nil {
			t.Fatal(err)
		}
		// Path-only, so a visitor reaching the server by another name
		// loads them from it.
		if !strings.HasPrefix(clip.URIForPreview, publicURL+"/media/") {
			t.Fatalf("signed address %s is not under the public URL", clip.URIForPreview)
		}
		clip.URIForPreview = strings.TrimPrefix(clip.URIForPreview, publicURL)
		clip.URIForExport = strings.TrimPrefix(clip.URIForExport, publicURL)
		for _, want := range []string{
			`<article class="clip" id="clip-` + clip.CurationID + `" data-clip-id="` + clip.ID + `">`,
			`<video class="clip-preview" controls preload="metadata" playsinline src="` + clip.URIForPreview + `">`,
			`<a class="download" href="` + clip.URIForExport + `" download>`,
			`<p class="description">about ` + clip.Title + `</p>`, `the words of ` + clip.Title,
			`<li class="hashtag">#clip` + clip.CurationID + `</li>`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("project page lacks %s", want)
			}
		}
		u, err := url.Parse(clip.URIForPreview)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := signer.Check(ctx, p.ID, clip.CurationID+".preview.mp4", u.Query()); err != nil {
			t.Errorf("preview address %s does not pass the media check: %v", clip.URIForPreview, err)
		}
	}
	for _, want := range []string{
		`<span class="time-range">00:00–00:30</span>`, `<span class="time-range">01:05–01:35</span>`,
		`In: <a href="/ui/collections#col-` + col.CollectionID + `">Best of</a>`,
		`<dt>Clip durations</dt><dd>15–45</dd>`, `<dt>Topic keywords</dt><dd>go, sqlite</dd>`,
		`<dt>Layout aspect ratio</dt><dd>portrait</dd>`, `<dt>Enable caption</dt><dd>yes</dd>`,
		`<dt>Quickstart config › Enable remove filler words</dt><dd>yes</dd>`, `<dt>Source lang</dt><dd>en</dd>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("project page lacks %s", want)
		}
	}
	if strings.Count(body, `<a href="/ui/collections#col-`) != 1 {
		t.Error("the clip outside the collection is shown in it")
	}
	if strings.Contains(body, `{"`) {
		t.Error("the preferences are shown as JSON")
	}
}

func TestAnotherOrgsProjectIsA404Page(t *testing.T) {
	e := newEnv(t)
	theirs := e.project(t, orgB, "Their secret", nil)
	e.clips(t, theirs, "their clip")
	c := e.login(t, e.keyA)
	for _, path := range []string{"/ui/projects/" + theirs.ID, "/ui/projects/missing", "/ui/nowhere"} {
		rec := e.get(t, path, c)
		wantStatus(t, rec, http.StatusNotFound)
		body := rec.Body.String()
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || !strings.Contains(body, `<h1>Not found</h1>`) ||
			!strings.Contains(body, `<nav>`) {
			t.Errorf("%s: not the 404 page in the layout:\n%s", path, body)
		}
		if strings.Contains(body, "Their secret") || strings.Contains(body, "their clip") {
			t.Errorf("%s shows another org's project", path)
		}
	}
	// The same page, and the same words, for a missing project.
	a := e.get(t, "/ui/projects/"+theirs.ID, c).Body.String()
	b := e.get(t, "/ui/projects/missing", c).Body.String()
	if a != b {
		t.Error("another org's project is told apart from a missing one")
	}
}

func TestCollectionsPage(t *testing.T) {
	e := newEnv(t)
	p := e.project(t, orgA, "Talk", nil)
	clips := e.clips(t, p, "Hook", "Outro")
	ctx := context.Background()
	best, err := e.st.CreateCollection(ctx, orgA, "Best of", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateCollection(ctx, orgA, "Empty one", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateCollection(ctx, orgB, "Theirs", 0); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 0} {
		if err := e.st.AddCollectionContent(ctx, orgA, best.CollectionID, clips[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/collections", c)
	wantStatus(t, rec, http.StatusOK)
	body := rec.Body.String()
	outro := `<a href="/ui/projects/` + p.ID + `#clip-c2">Outro</a>`
	hook := `<a href="/ui/projects/` + p.ID + `#clip-c1">Hook</a>`
	for _, want := range []string{`<h2>Best of</h2>`, outro, hook, `<h2>Empty one</h2>`, `No clips in it.`} {
		if !strings.Contains(body, want) {
			t.Errorf("collections page lacks %s", want)
		}
	}
	if strings.Index(body, outro) > strings.Index(body, hook) {
		t.Error("the clips are not in the order they were added")
	}
	if strings.Contains(body, "Theirs") {
		t.Error("the page shows another org's collection")
	}
}

func TestSchedulesPage(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p := e.project(t, orgA, "Talk", nil)
	e.clips(t, p, "Hook", "Outro")
	acct, err := e.st.ConnectSocialAccountTo(ctx, orgA, apitypes.SocialAccount{Platform: "YOUTUBE", ExtUserName: "My channel"},
		"webhook:https://hooks.example.com/posts?token=s3cret")
	if err != nil {
		t.Fatal(err)
	}
	content := func(clip, title string) store.PostContent {
		return store.PostContent{ProjectID: p.ID, ClipID: clip, PostAccountID: acct.PostAccountID, Title: title}
	}
	now := e.clock.now()
	fired, err := e.st.CreateSchedule(ctx, orgA, content("c1", "Went out"), now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateSchedule(ctx, orgA, content("c2", "Later one"), now.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateSchedule(ctx, orgB, content("c2", "Not ours"), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.clock.advance(2 * time.Minute)
	post, err := e.st.FireSchedule(ctx, fired.ID, store.PostLimits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := e.clock.now()
	if err := e.st.MarkPostPublished(ctx, post.ID, at, "https://user:pw@hooks.example.com/posts?token=s3cret", 0, nil); err != nil {
		t.Fatal(err)
	}

	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/schedules", c)
	wantStatus(t, rec, http.StatusOK)
	body := rec.Body.String()
	pending, firedPart, ok := strings.Cut(body, "<h2>Fired</h2>")
	if !ok {
		t.Fatalf("no fired section:\n%s", body)
	}
	if !strings.Contains(pending, "Later one") || strings.Contains(pending, "Went out") {
		t.Errorf("pending section:\n%s", pending)
	}
	for _, want := range []string{"Went out", `<span class="account">YOUTUBE · My channel</span>`,
		`<span class="destination">webhook to hooks.example.com</span>`, `<span class="post-status">published</span>`,
		`<a class="location" href="https://hooks.example.com/posts">https://hooks.example.com/posts</a>`,
		`href="/ui/projects/` + p.ID + `#clip-c1"`, at.Format(time.RFC3339)} {
		if !strings.Contains(firedPart, want) {
			t.Errorf("fired section lacks %s:\n%s", want, firedPart)
		}
	}
	if strings.Contains(body, "s3cret") || strings.Contains(body, "pw@") {
		t.Error("the page shows the webhook's credentials")
	}
	if strings.Contains(body, "Not ours") {
		t.Error("the page shows another org's schedule")
	}
}

// TestScriptFindsWhatThePagesHold keeps gallery.js and the templates in
// step: every class the script updates is on a row of the list and on the
// project page, which carry the attributes it polls by.
func TestScriptFindsWhatThePagesHold(t *testing.T) {
	script, err := staticFiles.ReadFile("static/gallery.js")
	if err != nil {
		t.Fatal(err)
	}
	var classes []string
	for _, m := range regexp.MustCompile(`(?:set|querySelector)\("\.([a-z-]+)"`).FindAllStringSubmatch(string(script), -1) {
		classes = append(classes, m[1])
	}
	if len(classes) < 4 {
		t.Fatalf("found only %v in the script", classes)
	}
	e := newEnv(t)
	p := e.project(t, orgA, "Running", func(p *store.Project) { p.Stage = apitypes.StageImport })
	c := e.login(t, e.keyA)
	for _, path := range []string{"/ui/", "/ui/projects/" + p.ID} {
		body := e.get(t, path, c).Body.String()
		for _, class := range classes {
			if !strings.Contains(body, `class="`+class+`"`) {
				t.Errorf("%s has no element of class %s, which the script updates", path, class)
			}
		}
		for _, attr := range []string{`data-project-id="` + p.ID + `"`, `data-in-flight="true"`, `<progress max="100" value="28">`} {
			if !strings.Contains(body, attr) {
				t.Errorf("%s lacks %s", path, attr)
			}
		}
	}
}

func TestCollectionsPageIsPaged(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	p := e.project(t, orgA, "Talk", nil)
	clips := e.clips(t, p, "Hook")
	var last string
	for i := range collectionsPerPage + 1 {
		col, err := e.st.CreateCollection(ctx, orgA, fmt.Sprintf("Collection %02d", i), 0)
		if err != nil {
			t.Fatal(err)
		}
		last = col.CollectionID
	}
	if err := e.st.AddCollectionContent(ctx, orgA, last, clips[0].ID); err != nil {
		t.Fatal(err)
	}
	c := e.login(t, e.keyA)
	first := e.get(t, "/ui/collections", c)
	wantStatus(t, first, http.StatusOK)
	body := first.Body.String()
	if n := strings.Count(body, `<section class="collection"`); n != collectionsPerPage {
		t.Errorf("first page shows %d collections, want %d", n, collectionsPerPage)
	}
	if !strings.Contains(body, `href="/ui/collections?page=2"`) || strings.Contains(body, "Collection 50") {
		t.Errorf("first page: no link to the second or it shows the 51st:\n%s", body)
	}
	second := e.get(t, "/ui/collections?page=2", c)
	wantStatus(t, second, http.StatusOK)
	body = second.Body.String()
	if n := strings.Count(body, `<section class="collection"`); n != 1 || !strings.Contains(body, "<h2>Collection 50</h2>") ||
		!strings.Contains(body, `<a href="/ui/projects/`+p.ID+`#clip-c1">Hook</a>`) {
		t.Errorf("second page: want the 51st collection with its clip:\n%s", body)
	}
	wantStatus(t, e.get(t, "/ui/collections?page=3", c), http.StatusNotFound)
	wantStatus(t, e.get(t, "/ui/collections?page=x", c), http.StatusNotFound)
}

func TestProjectSourceIsShownWithoutItsPresignedQuery(t *testing.T) {
	e := newEnv(t)
	e.project(t, orgA, "Signed", func(p *store.Project) {
		p.VideoURL = "https://user:pw@bucket.example.com/talks/keynote.mp4?X-Amz-Signature=s3cr3t&X-Amz-Credential=AKIA#t=5"
	})
	c := e.login(t, e.keyA)
	rec := e.get(t, "/ui/", c)
	wantStatus(t, rec, http.StatusOK)
	body := rec.Body.String()
	if !strings.Contains(body, `<span class="source">https://bucket.example.com/talks/keynote.mp4</span>`) {
		t.Errorf("the source is not shown as scheme://host/path:\n%s", body)
	}
	for _, secret := range []string{"s3cr3t", "AKIA", "pw@"} {
		if strings.Contains(body, secret) {
			t.Errorf("the page shows %q of the presigned address", secret)
		}
	}
}
