package server

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/sources"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// A link that needs no DNS: servers in these tests allow private imports
// unless the test is about refusing them, so nothing is looked up.
const ytURL = "https://www.youtube.com/watch?v=abc123XYZ"

func TestAuthErrors(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{AllowPrivateImports: true})
	c := newClient(t, srv, devKey)
	const path = "/api/brand-templates?q=mine"

	resp, data := c.do(http.MethodGet, path, nil, "Authorization", "")
	wantError(t, resp, data, http.StatusUnauthorized, "Unauthorized", "Authorization")
	resp, data = c.do(http.MethodGet, path, nil, "Authorization", "Bearer ck_wrong")
	wantError(t, resp, data, http.StatusUnauthorized, "Unauthorized", "invalid API key")
	resp, data = c.do(http.MethodGet, path, nil, "Authorization", "Basic "+devKey)
	wantError(t, resp, data, http.StatusUnauthorized, "Unauthorized", "Bearer")
	resp, data = c.do(http.MethodPost, "/api/clip-projects", map[string]any{"videoUrl": ytURL}, "Authorization", "")
	wantError(t, resp, data, http.StatusUnauthorized, "Unauthorized", "Authorization")

	// A bare key without "Bearer" is accepted (documented in api/auth.go).
	if resp, data := c.do(http.MethodGet, path, nil, "Authorization", devKey); resp.StatusCode != http.StatusOK {
		t.Errorf("bare token: status %d, body %s", resp.StatusCode, data)
	}
	// x-svc-org-id: the key's own org is fine, another is 403 naming the header.
	if resp, data := c.do(http.MethodGet, path, nil, apitypes.HeaderOrgID, DevOrgID); resp.StatusCode != http.StatusOK {
		t.Errorf("own org header: status %d, body %s", resp.StatusCode, data)
	}
	resp, data = c.do(http.MethodGet, path, nil, apitypes.HeaderOrgID, "org-other")
	wantError(t, resp, data, http.StatusForbidden, "Forbidden", apitypes.HeaderOrgID)

	// Health, storage and media need no key.
	anon := newClient(t, srv, "")
	if resp, data := anon.do(http.MethodGet, "/healthz", nil); resp.StatusCode != http.StatusOK || string(data) != "ok" {
		t.Errorf("healthz: %d %q", resp.StatusCode, data)
	}
}

func TestOtherOrgProjectIsNotFound(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{AllowPrivateImports: true})
	c := newClient(t, srv, devKey)
	p := c.mustCreate(map[string]any{"videoUrl": ytURL})

	otherKey, err := srv.store.CreateKey(t.Context(), "org-other", "user-other")
	if err != nil {
		t.Fatal(err)
	}
	other := newClient(t, srv, otherKey)
	resp, data := other.do(http.MethodGet, "/api/clip-projects/"+p.ID, nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", p.ID)
	resp, data = other.do(http.MethodPost, "/api/clip-projects/"+p.ID+"/update-visibility", map[string]string{"visibility": "PUBLIC"})
	wantError(t, resp, data, http.StatusNotFound, "Not Found", p.ID)
	resp, data = other.do(http.MethodGet, "/api/exportable-clips?q=findByProjectId&projectId="+p.ID, nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", p.ID)
	resp, data = c.do(http.MethodGet, "/api/clip-projects/nope", nil)
	wantError(t, resp, data, http.StatusNotFound, "Not Found", "nope")

	// The owner still sees it, and its visibility did not change.
	if got := c.project(p.ID); got.Visibility != apitypes.VisibilityDefault {
		t.Errorf("visibility %s after another org's update, want DEFAULT", got.Visibility)
	}
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{AllowPrivateImports: true})
	c := newClient(t, srv, devKey)

	// An upload that has bytes but is not complete.
	link := c.uploadLink()
	session := c.startSession(link.URL)
	if resp, data := c.do(http.MethodPut, session, []byte("0123456789"), "Content-Range", "bytes 0-9/100"); resp.StatusCode != http.StatusPermanentRedirect {
		t.Fatalf("partial PUT: %d %s", resp.StatusCode, data)
	}

	cases := []struct {
		name string
		body any
		want string // a part of errorMessage naming the field and rule
	}{
		{"malformed JSON", `{"videoUrl": `, "body: malformed JSON"},
		{"not an object", `[1,2]`, "body: must be an object, not a JSON array"},
		{"missing videoUrl", map[string]any{}, "videoUrl: is required"},
		{"videoUrl wrong type", map[string]any{"videoUrl": 12}, "videoUrl: must be a string"},
		{"videoUrl ftp", map[string]any{"videoUrl": "ftp://example.com/v.mp4"}, "videoUrl: must be an http(s) URL"},
		{"unknown upload id", map[string]any{"videoUrl": "up_doesnotexist"}, "videoUrl: unknown upload id"},
		{"incomplete upload", map[string]any{"videoUrl": link.UploadID}, "videoUrl: upload " + link.UploadID + " is incomplete (10 of 100 bytes"},
		{"range end missing", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"range": map[string]any{"startSec": 5}}}, "curationPref.range: startSec and endSec are both required"},
		{"range empty", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"range": map[string]any{}}}, "curationPref.range: startSec and endSec are both required"},
		{"range negative", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"range": map[string]any{"startSec": -1, "endSec": 5}}}, "curationPref.range.startSec: must be >= 0"},
		{"range reversed", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"range": map[string]any{"startSec": 10, "endSec": 10}}}, "curationPref.range: startSec (10) must be less than endSec (10)"},
		{"range wrong type", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"range": map[string]any{"startSec": "0", "endSec": 5}}}, "curationPref.range.startSec: must be a number"},
		{"clipDurations reversed", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"clipDurations": [][]float64{{15, 60}, {30, 10}}}}, "curationPref.clipDurations[1]: must be a pair [min, max] of seconds with 0 <= min < max"},
		{"clipDurations negative", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"clipDurations": [][]float64{{-5, 10}}}}, "curationPref.clipDurations[0]"},
		// Pairs are checked in the raw JSON: a decode into [2]float64 would drop or invent numbers.
		{"clipDurations triple", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":[[10,20,30]]}}`, "curationPref.clipDurations[0]: must be an array of exactly two numbers [min, max] of seconds, not [10,20,30]"},
		{"clipDurations single", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":[[30]]}}`, "curationPref.clipDurations[0]: must be an array of exactly two numbers [min, max] of seconds, not [30]"},
		{"clipDurations empty pair", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":[[5,10],[]]}}`, "curationPref.clipDurations[1]: must be an array of exactly two numbers"},
		{"clipDurations not an array", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":"5-10"}}`, "curationPref.clipDurations: must be an array of [min, max] pairs of seconds, not \"5-10\""},
		{"clipDurations string", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":[[5,10],["5",10]]}}`, `curationPref.clipDurations[1]: must be an array of exactly two numbers [min, max] of seconds, not ["5",10]`},
		{"clipDurations null", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":[[null,10]]}}`, "curationPref.clipDurations[0]: must be an array of exactly two numbers"},
		{"clipDurations flat", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":[5,10]}}`, "curationPref.clipDurations[0]: must be an array of exactly two numbers [min, max] of seconds, not 5"},
		{"clipDurations object", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":{"min":5}}}`, "curationPref.clipDurations: must be an array of [min, max] pairs"},
		{"clipDurations equal", `{"videoUrl":"` + ytURL + `","curationPref":{"clipDurations":[[30,30]]}}`, "curationPref.clipDurations[0]: must be a pair [min, max] of seconds with 0 <= min < max, not [30, 30]"},
		{"unknown model", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"model": "ClipEverything"}}, "curationPref.model: must be one of ClipBasic, ClipAnything"},
		{"topicKeywords with ClipAnything", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"model": "ClipAnything", "topicKeywords": []string{"go"}}}, "curationPref.topicKeywords: applies to model ClipBasic only"},
		{"customPrompt with ClipBasic default", map[string]any{"videoUrl": ytURL, "curationPref": map[string]any{"customPrompt": "funny bits"}}, "curationPref.customPrompt: applies to model ClipAnything only"},
		{"unknown aspect", map[string]any{"videoUrl": ytURL, "renderPref": map[string]any{"layoutAspectRatio": "diagonal"}}, "renderPref.layoutAspectRatio: must be one of portrait, landscape, square"},
		{"bad crop ratio", map[string]any{"videoUrl": ytURL, "renderPref": map[string]any{"fitLayoutCropRatio": "9x16"}}, "renderPref.fitLayoutCropRatio: must be a ratio w:h"},
		{"zero crop ratio", map[string]any{"videoUrl": ytURL, "renderPref": map[string]any{"fitLayoutCropRatio": "0:16"}}, "renderPref.fitLayoutCropRatio"},
		{"unknown action", map[string]any{"videoUrl": ytURL, "conclusionActions": []map[string]any{{"type": "SMS"}}}, "conclusionActions[0].type: must be WEBHOOK or EMAIL"},
		{"bad email", map[string]any{"videoUrl": ytURL, "conclusionActions": []map[string]any{{"type": "WEBHOOK", "url": "https://hooks.example.com/x"}, {"type": "EMAIL", "email": "not-an-address"}}}, "conclusionActions[1].email"},
		{"webhook without url", map[string]any{"videoUrl": ytURL, "conclusionActions": []map[string]any{{"type": "WEBHOOK"}}}, "conclusionActions[0].url: a WEBHOOK action needs an absolute http(s) url"},
		{"webhook ftp url", map[string]any{"videoUrl": ytURL, "conclusionActions": []map[string]any{{"type": "WEBHOOK", "url": "ftp://hooks.example.com/x"}}}, "conclusionActions[0].url"},
		{"unknown brand template", map[string]any{"videoUrl": ytURL, "brandTemplateId": "preset-fancy-Nope"}, `brandTemplateId: unknown brand template "preset-fancy-Nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, data := c.create(tc.body)
			wantError(t, resp, data, http.StatusBadRequest, "Bad Request", tc.want)
		})
	}
}

func TestPrivateImportsRefused(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	c := newClient(t, srv, devKey)
	for _, u := range []string{"http://127.0.0.1:9/v.mp4", "http://localhost/v.mp4", "http://[::1]/v.mp4",
		"http://10.1.2.3/v.mp4", "http://192.168.0.10/v.mp4", "http://169.254.169.254/latest", "http://[fd00::1]/v.mp4",
		// Reserved ranges the pipeline refuses too (netguard.IsPrivateAddr): benchmarking, class E, NAT64.
		"http://198.18.0.1/v.mp4", "http://240.0.0.1/v.mp4", "http://[64:ff9b::a00:1]/v.mp4"} {
		resp, data := c.create(map[string]any{"videoUrl": u})
		wantError(t, resp, data, http.StatusBadRequest, "Bad Request", "videoUrl: host")
		if !strings.Contains(string(data), "non-public") {
			t.Errorf("%s: message %s does not say why", u, data)
		}
	}
}

// TestSourceClassifiedAsPipeline: the create response reports the source
// exactly as the pipeline's import will see it (package sources), and a
// videoUrl the pipeline could not import is refused at create.
func TestSourceClassifiedAsPipeline(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{AllowPrivateImports: true, Limits: quota.Limits{MaxConcurrent: 100}})
	c := newClient(t, srv, devKey)
	for _, u := range []string{
		"https://zoom.com/rec/play/Z00m", "https://us02web.zoom.us/rec/share/R3c0rd", "https://youtu.be/xyz789?si=q",
		"https://music.youtube.com/watch?v=m1", "https://drive.google.com/open?id=2XyZ", "https://streamyard.com/watch/s7r34m",
		"https://vimeo.com/76979871", "https://bucket.s3.amazonaws.com/talks/keynote.mp4", "https://example.com/",
	} {
		want, err := sources.Classify(u)
		if err != nil {
			t.Fatalf("Classify(%s): %v", u, err)
		}
		p := c.mustCreate(map[string]any{"videoUrl": u})
		if p.SourcePlatform != want.Platform || p.SourceID != want.ID {
			t.Errorf("%s: sourcePlatform %s, sourceId %q; the pipeline sees %s, %q", u, p.SourcePlatform, p.SourceID, want.Platform, want.ID)
		}
	}
	if p := c.mustCreate(map[string]any{"videoUrl": "https://zoom.com/rec/play/Z00m"}); p.SourcePlatform != apitypes.PlatformZoom {
		t.Errorf("zoom.com: sourcePlatform %s, want ZOOM", p.SourcePlatform)
	}
	resp, data := c.create(map[string]any{"videoUrl": "up_1/../x"})
	wantError(t, resp, data, http.StatusBadRequest, "Bad Request", `videoUrl: "up_1/../x" is neither an http(s) URL nor an uploadId`)
}

// TestOwnMediaImportAllowed: this server's own media addresses (the spec's
// {base_url} source) pass the private-address rule, since the pipeline reads
// them from disk; whether they name a clip of the org is the pipeline's check.
func TestOwnMediaImportAllowed(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{})
	c := newClient(t, srv, devKey)
	p := c.mustCreate(map[string]any{"videoUrl": srv.URL() + "/media/prj_nope/clip.mp4"})
	if p.SourcePlatform != apitypes.PlatformYtdlpLink || p.SourceID != "clip.mp4" {
		t.Errorf("sourcePlatform %s, sourceId %q; want YTDLP_LINK, clip.mp4", p.SourcePlatform, p.SourceID)
	}
	resp, data := c.create(map[string]any{"videoUrl": srv.URL() + "/storage/uploads/x.mp4"})
	wantError(t, resp, data, http.StatusBadRequest, "Bad Request", "non-public")
}

func TestCreatedProjectFields(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{AllowPrivateImports: true})
	c := newClient(t, srv, devKey)
	resp, data := c.create(map[string]any{
		"videoUrl":          ytURL,
		"importPreference":  map[string]any{"sourceLang": "de"},
		"renderPref":        map[string]any{"layoutAspectRatio": "square"},
		"uploadedVideoAttr": map[string]any{"title": "Talk"},
		"conclusionActions": []map[string]any{{"type": "EMAIL", "email": "me@example.com", "notifyFailure": true}},
	})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, data)
	}
	if resp.Header.Get(apitypes.HeaderUploadID) != "" {
		t.Errorf("x-svc-upload-id set for a link: %q", resp.Header.Get(apitypes.HeaderUploadID))
	}
	// Every field of the Project resource is present with its documented JSON type.
	raw := decode[map[string]any](t, data)
	kinds := map[string]string{
		"id": "string", "projectId": "string", "userId": "string", "orgId": "string", "isDeleted": "bool", "isPurged": "bool",
		"sourcePlatform": "string", "sourceId": "string", "labels": "array", "productTier": "string", "stage": "string",
		"storageSize": "number", "storageStatus": "string", "storageExpireAt": "string", "createdAt": "string",
		"updatedAt": "string", "clusterJobId": "string", "cluster": "string", "visibility": "string", "permissions": "array",
		"promptRecommendations": "array", "sourceUri": "string", "model": "string", "error": "null", "stallCount": "number",
		"workerUrl": "null", "curationPref": "object", "renderPref": "object", "refundStatus": "null", "importPref": "object",
		"brandTemplateId": "string", "uploadedVideoAttr": "object", "conclusionActions": "array",
	}
	for field, kind := range kinds {
		v, ok := raw[field]
		if !ok {
			t.Errorf("field %s missing", field)
			continue
		}
		if got := jsonKind(v); got != kind {
			t.Errorf("field %s is a %s, want %s", field, got, kind)
		}
	}
	p := decode[apitypes.Project](t, data)
	if p.ID == "" || p.ProjectID != p.ID || len(p.ID) != 20 {
		t.Errorf("id %q projectId %q, want equal 20-character ids", p.ID, p.ProjectID)
	}
	checks := map[string][2]string{
		"orgId":           {p.OrgID, DevOrgID},
		"userId":          {p.UserID, DevUserID},
		"stage":           {string(p.Stage), string(apitypes.StageQueued)},
		"visibility":      {p.Visibility, apitypes.VisibilityDefault},
		"sourcePlatform":  {p.SourcePlatform, apitypes.PlatformYouTube},
		"sourceId":        {p.SourceID, "abc123XYZ"},
		"productTier":     {p.ProductTier, "PRO"},
		"storageStatus":   {p.StorageStatus, "TEMPORARY"},
		"cluster":         {p.Cluster, "local"},
		"sourceUri":       {deref(p.SourceURI), ytURL},
		"model":           {deref(p.Model), apitypes.ModelClipBasic},
		"curationPref":    {p.CurationPref.Model, apitypes.ModelClipBasic},
		"importPref":      {p.ImportPref.SourceLang, "de"},
		"renderPref":      {p.RenderPref.LayoutAspectRatio, "square"},
		"brandTemplateId": {deref(p.BrandTemplateID), store.DefaultPresetID},
		"title":           {p.UploadedVideoAttr.Title, "Talk"},
		"permissions":     {strings.Join(p.Permissions, ","), "PROJECT_SHARE,PROJECT_EDIT,PROJECT_VIEW"},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want %q", name, c[0], c[1])
		}
	}
	created, _ := time.Parse(time.RFC3339, p.CreatedAt)
	expires, _ := time.Parse(time.RFC3339, p.StorageExpireAt)
	if got := expires.Sub(created); got != 30*24*time.Hour {
		t.Errorf("storageExpireAt - createdAt = %s, want 720h", got)
	}
	if p.StallCount == nil || *p.StallCount != 0 || len(p.ConclusionActions) != 1 || len(p.Labels) != 0 {
		t.Errorf("stallCount %v, conclusionActions %v, labels %v", p.StallCount, p.ConclusionActions, p.Labels)
	}

	// update-visibility: a known value changes it, an unknown one is a 400.
	resp, data = c.do(http.MethodPost, "/api/clip-projects/"+p.ID+"/update-visibility", map[string]string{"visibility": "PUBLIC_VIEW"})
	if resp.StatusCode != http.StatusOK || decode[apitypes.Project](t, data).Visibility != "PUBLIC_VIEW" {
		t.Errorf("update-visibility: %d %s", resp.StatusCode, data)
	}
	resp, data = c.do(http.MethodPost, "/api/clip-projects/"+p.ID+"/update-visibility", map[string]string{"visibility": "SECRET"})
	wantError(t, resp, data, http.StatusBadRequest, "Bad Request", "visibility: must be one of DEFAULT, PUBLIC, PUBLIC_VIEW")
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case float64:
		return "number"
	case []any:
		return "array"
	default:
		return "object"
	}
}

func TestListQueries(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{AllowPrivateImports: true})
	c := newClient(t, srv, devKey)
	p := c.mustCreate(map[string]any{"videoUrl": ytURL})

	bad := []struct{ query, want string }{
		{"", "q: is required"},
		{"q=findAll", `q: must be findByProjectId or findByCollectionId, not "findAll"`},
		{"q=findByProjectId", "projectId: is required when q=findByProjectId"},
		{"q=findByProjectId&projectId=" + p.ID + "&pageNum=0", "pageNum: must be an integer from 1 to "},
		{"q=findByProjectId&projectId=" + p.ID + "&pageNum=x", "pageNum"},
		{"q=findByProjectId&projectId=" + p.ID + "&pageSize=101", "pageSize: must be an integer from 1 to 100"},
		{"q=findByProjectId&projectId=" + p.ID + "&pageSize=0", "pageSize"},
		{"q=findByCollectionId", "collectionId: is required when q=findByCollectionId"},
	}
	for _, b := range bad {
		resp, data := c.do(http.MethodGet, "/api/exportable-clips?"+b.query, nil)
		wantError(t, resp, data, http.StatusBadRequest, "Bad Request", b.want)
	}
	// A project without clips yet lists an empty array, not null.
	resp, data := c.do(http.MethodGet, "/api/exportable-clips?q=findByProjectId&pageNum=1&pageSize=100&projectId="+p.ID, nil)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(data)) != "[]" {
		t.Errorf("empty clip list: %d %s", resp.StatusCode, data)
	}

	// Brand templates: the presets (bare array) with exactly one default; q=mine required.
	resp, data = c.do(http.MethodGet, "/api/brand-templates?q=mine", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("brand-templates: %d %s", resp.StatusCode, data)
	}
	tpls := decode[[]apitypes.BrandTemplate](t, data)
	defaults := 0
	for _, tp := range tpls {
		if tp.IsDefault {
			defaults++
		}
	}
	if len(tpls) != len(apitypes.PresetTemplateIDs) || defaults != 1 {
		t.Errorf("%d templates with %d defaults, want %d with 1", len(tpls), defaults, len(apitypes.PresetTemplateIDs))
	}
	resp, data = c.do(http.MethodGet, "/api/brand-templates?q=all", nil)
	wantError(t, resp, data, http.StatusBadRequest, "Bad Request", `q: must be mine, not "all"`)
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	srv := startServer(t, Config{Limits: quota.Limits{RateLimit: 3}, AllowPrivateImports: true})
	c := newClient(t, srv, devKey)
	const path = "/api/clip-projects/unknown"
	for i := range 3 {
		resp, data := c.do(http.MethodGet, path, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("request %d: %d %s", i+1, resp.StatusCode, data)
		}
		if got, want := resp.Header.Get("X-RateLimit-Remaining"), strconv.Itoa(2-i); got != want {
			t.Errorf("request %d: X-RateLimit-Remaining %q, want %q", i+1, got, want)
		}
	}
	resp, data := c.do(http.MethodGet, "/api/exportable-clips?q=findByProjectId&projectId=x", nil)
	wantError(t, resp, data, http.StatusTooManyRequests, "TooManyRequests", "rate limit of 3 requests per minute")
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q, want whole seconds >= 1", resp.Header.Get("Retry-After"))
	}
	if got := resp.Header.Get("X-RateLimit-Limit"); got != "3" {
		t.Errorf("X-RateLimit-Limit %q, want 3", got)
	}
	if got := resp.Header.Get("X-RateLimit-Remaining"); got != "0" {
		t.Errorf("X-RateLimit-Remaining %q, want 0", got)
	}
	if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err != nil || reset <= time.Now().Add(-time.Second).Unix() {
		t.Errorf("X-RateLimit-Reset %q, want a Unix time in the future", resp.Header.Get("X-RateLimit-Reset"))
	}

	// Not a core endpoint: not limited.
	if resp, data := c.do(http.MethodGet, "/api/brand-templates?q=mine", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("brand-templates under the rate limit: %d %s", resp.StatusCode, data)
	}
	// Another key has its own bucket.
	key2, err := srv.store.CreateKey(t.Context(), DevOrgID, "user-2")
	if err != nil {
		t.Fatal(err)
	}
	if resp, data := newClient(t, srv, key2).do(http.MethodGet, path, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("second key: %d %s", resp.StatusCode, data)
	}
}

func TestMonthlyCap(t *testing.T) {
	t.Parallel()
	// The first project stays in IMPORT (its download hangs), holding the
	// 10 credits reserved at create: a failed import would refund them.
	srv := startServer(t, Config{Limits: quota.Limits{MonthlyCredits: 15}, AllowPrivateImports: true})
	hang := hangingSource(t)
	c := newClient(t, srv, devKey)
	c.mustCreate(map[string]any{"videoUrl": hang + "/talk.mp4"}) // reserves 10 of 15

	if link := c.uploadLink(); link.UseAmount != 10 || link.TotalAmount != 15 {
		t.Errorf("upload link useAmount %v totalAmount %v, want 10 and 15", link.UseAmount, link.TotalAmount)
	}
	resp, data := c.create(map[string]any{"videoUrl": ytURL})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("second create: %d %s, want 403", resp.StatusCode, data)
	}
	body := decode[apitypes.MonthlyCapBody](t, data)
	if body.Code != apitypes.CodeMonthlyCap {
		t.Errorf("code %q", body.Code)
	}
	if want := quota.NextMonth(time.Now()).Format(time.RFC3339); body.ResetAt != want {
		t.Errorf("reset_at %q, want %q", body.ResetAt, want)
	}
	if body.UpgradeURL != srv.URL()+"/upgrade" {
		t.Errorf("upgrade_url %q, want %q", body.UpgradeURL, srv.URL()+"/upgrade")
	}
	if resp, data := newClient(t, srv, "").do(http.MethodGet, body.UpgradeURL, nil); resp.StatusCode != http.StatusOK ||
		!strings.Contains(string(data), "--monthly-credits") {
		t.Errorf("upgrade page: %d %s", resp.StatusCode, data)
	}
}

func TestConcurrentCapAnswer(t *testing.T) {
	t.Parallel()
	// The first project's source never finishes downloading, so it stays in
	// flight for the whole test and the second create meets the cap.
	srv := startServer(t, Config{Limits: quota.Limits{MaxConcurrent: 1}, AllowPrivateImports: true})
	hang := hangingSource(t)

	c := newClient(t, srv, devKey)
	first := c.mustCreate(map[string]any{"videoUrl": hang + "/talk.mp4"})
	resp, data := c.create(map[string]any{"videoUrl": hang + "/other.mp4"})
	wantError(t, resp, data, http.StatusTooManyRequests, "TooManyRequests", "concurrent project limit of 1")
	if got := resp.Header.Get(apitypes.HeaderCapReason); got != apitypes.CapReasonConcurrent {
		t.Errorf("X-Cap-Reason %q, want concurrent", got)
	}
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	if p := c.project(first.ID); p.Stage == apitypes.StageStalled || p.Stage == apitypes.StageComplete {
		t.Errorf("the first project left flight (%s: %s) while its download hangs", p.Stage, deref(p.Error))
	}
}
