package api_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/api"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// fuzzServer is the handler the fuzz targets send their bodies to, black
// box: org-a's key, its COMPLETE project p1 with clip c01, a TWITTER
// account pa_twitter (no sub-account), a FACEBOOK_PAGE account pa_facebook
// with page "page-1" and one collection. Limits are high so that a long run meets the property
// checks, not the quotas.
type fuzzServer struct {
	h            http.Handler
	key          string
	twitter      string // postAccountId of the TWITTER account
	facebook     string // postAccountId of the FACEBOOK_PAGE account
	collectionID string
	dataDir      string
}

func newFuzzServer(f *testing.F) *fuzzServer {
	f.Helper()
	ctx := f.Context()
	st, err := store.Open(ctx, f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = st.Close() })
	srv := &fuzzServer{dataDir: f.TempDir()}
	if srv.key, err = st.CreateKey(ctx, "org-a", "user-a"); err != nil {
		f.Fatal(err)
	}
	now := time.Now()
	if err := st.CreateProject(ctx, &store.Project{ID: "p1", OrgID: "org-a", Stage: apitypes.StageComplete, CreatedAt: now}, store.Admission{}); err != nil {
		f.Fatal(err)
	}
	if err := st.ReplaceClips(ctx, "p1", "org-a", []store.Clip{{ID: "p1.c01", CurationID: "c01", Title: "A clip", UpdatedAt: now}}); err != nil {
		f.Fatal(err)
	}
	for _, a := range []struct {
		into *string
		acct apitypes.SocialAccount
	}{
		{&srv.twitter, apitypes.SocialAccount{PostAccountID: "pa_twitter", Platform: "TWITTER", ExtUserName: "me"}},
		{&srv.facebook, apitypes.SocialAccount{PostAccountID: "pa_facebook", Platform: "FACEBOOK_PAGE", ExtUserName: "My page", SubAccountID: "page-1"}},
	} {
		acct, err := st.ConnectSocialAccount(ctx, "org-a", a.acct)
		if err != nil {
			f.Fatal(err)
		}
		*a.into = acct.PostAccountID
	}
	media, err := blob.NewDir(srv.dataDir, nil)
	if err != nil {
		f.Fatal(err)
	}
	srv.h = api.New(api.Config{
		Store: st, Media: media, PublicURL: "http://clipperd.test", AllowPrivateImports: true,
		Limits: quota.Limits{RateLimit: 100_000, PostRateLimit: 100_000, MaxConcurrent: 1 << 30, MonthlyCredits: 1 << 30, MaxCollections: 1 << 20},
	})
	rec := srv.serve(f, http.MethodPost, "/api/collections", `{"collectionName": "fuzz"}`)
	var created apitypes.Envelope[apitypes.Collection]
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil || rec.Code != http.StatusOK {
		f.Fatalf("create the fixture's collection: %d %s", rec.Code, rec.Body)
	}
	srv.collectionID = created.Data.CollectionID
	return srv
}

// serve sends one request with org-a's key.
func (srv *fuzzServer) serve(t testing.TB, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+srv.key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.h.ServeHTTP(rec, req)
	return rec
}

// post sends body to path and checks the answer's properties for a request
// of type T: never a 5xx, and a 4xx is a JSON error body naming one of T's
// fields or the body. ok is whether the body was accepted (2xx).
func post[T any](t *testing.T, srv *fuzzServer, path, body string) (rec *httptest.ResponseRecorder, ok bool) {
	t.Helper()
	rec = srv.serve(t, http.MethodPost, path, body)
	checkAnswer(t, rec, jsonFieldNames(reflect.TypeFor[T]()), body)
	return rec, rec.Code/100 == 2
}

// checkAnswer checks what every answer to a fuzzed body must be: below 500,
// and a 4xx in JSON naming what is wrong (fields are the JSON names of the
// request type).
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, fields map[string]bool, body string) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("body %q: status %d: %s", body, rec.Code, rec.Body)
	}
	if rec.Code < 400 {
		return
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("body %q: %d answered as %q, not JSON: %s", body, rec.Code, ct, rec.Body)
	}
	var eb apitypes.ErrorBody
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&eb); err != nil || eb.ErrorName == "" || eb.ErrorMessage == nil || *eb.ErrorMessage == "" {
		t.Fatalf("body %q: %d without an error body (%v): %s", body, rec.Code, err, rec.Body)
	}
	msg := *eb.ErrorMessage
	switch rec.Code {
	case http.StatusBadRequest:
		field, _, found := strings.Cut(msg, ": ")
		if !found || !namesAField(field, fields) {
			t.Fatalf("body %q: 400 %q names neither a field of the request nor the body", body, msg)
		}
	case http.StatusNotFound:
		if !strings.Contains(msg, "not found") && !strings.Contains(msg, " is not in ") && !strings.HasPrefix(msg, "no endpoint ") {
			t.Fatalf("body %q: 404 %q does not say what was not found", body, msg)
		}
	case http.StatusPaymentRequired, http.StatusForbidden, http.StatusConflict, http.StatusTooManyRequests:
	default:
		t.Fatalf("body %q: unexpected status %d: %s", body, rec.Code, rec.Body)
	}
}

// pathIndex is an array index in a JSON path ("conclusionActions[2]").
var pathIndex = regexp.MustCompile(`\[\d+\]`)

// anyField accepts any field name: a request with no body type, where the
// 400 may name a query parameter or header.
var anyField = map[string]bool{"*": true}

// namesAField is whether path ("body", "curationPref.clipDurations[1]")
// is the body or made of the request type's JSON field names.
func namesAField(path string, fields map[string]bool) bool {
	if path == "body" || path != "" && fields["*"] {
		return true
	}
	for seg := range strings.SplitSeq(pathIndex.ReplaceAllString(path, ""), ".") {
		if !fields[seg] {
			return false
		}
	}
	return true
}

// jsonFieldNames are the JSON names of every field reachable from t.
func jsonFieldNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for _, sf := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if sf.Anonymous && name == "" || !sf.IsExported() {
				continue
			}
			names[cmp.Or(name, sf.Name)] = true
			walk(sf.Type)
		}
	}
	walk(t)
	return names
}

// canonical is body decoded into T and encoded again: what a client built
// on the API's types would send for the same request.
func canonical[T any](t *testing.T, body string) string {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("accepted body %q does not decode into %T: %v", body, v, err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// identityFields differ between two answers to the same request: the ids
// and times the server makes.
var identityFields = map[string]bool{
	"id": true, "projectId": true, "jobId": true, "postId": true, "scheduleId": true, "uploadId": true,
	"url": true, "collectionId": true, "createdAt": true, "updatedAt": true, "storageExpireAt": true,
}

// sameAnswer checks that two answers agree but for identityFields.
func sameAnswer(t *testing.T, body, canon string, a, b *httptest.ResponseRecorder) {
	t.Helper()
	if a.Code != b.Code || !reflect.DeepEqual(withoutIdentity(t, a.Body.Bytes()), withoutIdentity(t, b.Body.Bytes())) {
		t.Fatalf("body %q was answered %d %s\nits canonical form %s %d %s", body, a.Code, a.Body, canon, b.Code, b.Body)
	}
}

func withoutIdentity(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("answer is not JSON: %v: %s", err, data)
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if identityFields[k] {
					delete(v, k)
					continue
				}
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(v)
	return v
}

// decodeAnswer decodes an accepted answer into T.
func decodeAnswer[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	return decodeBytes[T](t, rec.Body.Bytes())
}

func decodeBytes[T any](t *testing.T, data []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s is not a %T: %v", data, v, err)
	}
	return v
}

// sameJSON is whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	return reflect.DeepEqual(decodeBytes[any](t, a), decodeBytes[any](t, b))
}

// readsBack checks that GET path answers what rec answered.
func (srv *fuzzServer) readsBack(t *testing.T, body string, rec *httptest.ResponseRecorder, path string) {
	t.Helper()
	got := srv.serve(t, http.MethodGet, path, "")
	if got.Code != http.StatusOK || !sameJSON(t, got.Body.Bytes(), rec.Body.Bytes()) {
		t.Fatalf("body %q was answered %s\nwhich GET %s reads back %d %s", body, rec.Body, path, got.Code, got.Body)
	}
}

// startUpload opens a resumable session on an upload link; it returns the
// session's path.
func (srv *fuzzServer) startUpload(t *testing.T, link string) (string, error) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		return "", fmt.Errorf("upload link %q: %w", link, err)
	}
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, u.Path, nil)
	req.Header.Set(apitypes.HeaderResumable, "start")
	rec := httptest.NewRecorder()
	srv.h.ServeHTTP(rec, req)
	session, err := url.Parse(rec.Header().Get("Location"))
	if rec.Code != http.StatusCreated || err != nil {
		return "", fmt.Errorf("starting upload %s: %d %s", link, rec.Code, rec.Body)
	}
	return session.Path, nil
}

// exports is whether the collection's export lists the clip.
func (srv *fuzzServer) exports(t *testing.T, c apitypes.CollectionContent) bool {
	t.Helper()
	rec := srv.serve(t, http.MethodPost, "/api/collections/"+url.PathEscape(c.CollectionID)+"/export", "{}")
	if rec.Code == http.StatusNotFound {
		return false
	}
	if rec.Code != http.StatusOK {
		t.Fatalf("export of %q: %d %s", c.CollectionID, rec.Code, rec.Body)
	}
	for _, item := range decodeAnswer[apitypes.Envelope[apitypes.ExportedCollection]](t, rec).Data.ContentList {
		if item.ContentID == c.ContentID {
			return true
		}
	}
	return false
}

// addContent puts the clip in the collection, or finds it there already.
func (srv *fuzzServer) addContent(t *testing.T, c apitypes.CollectionContent) {
	t.Helper()
	body, _ := json.Marshal(c)
	if rec := srv.serve(t, http.MethodPost, "/api/collection-contents", string(body)); rec.Code != http.StatusOK {
		t.Fatalf("adding %+v: %d %s", c, rec.Code, rec.Body)
	}
}

// removeContent takes the clip out of the collection.
func (srv *fuzzServer) removeContent(t *testing.T, c apitypes.CollectionContent) {
	t.Helper()
	body, _ := json.Marshal(apitypes.DeleteCollectionContentRequest{
		Q: apitypes.QDeleteByCollectionAndContent, CollectionID: c.CollectionID, ContentID: c.ContentID,
	})
	rec := srv.serve(t, http.MethodPost, "/api/collection-contents/delete-collection-contents", string(body))
	if rec.Code != http.StatusOK {
		t.Fatalf("removing %+v: %d %s", c, rec.Code, rec.Body)
	}
}
