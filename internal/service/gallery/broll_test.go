package gallery

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// /ui/broll lists the caller's org's b-roll library, and only it.
func TestBrollPageListsTheOrgsLibrary(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, it := range []*store.BrollItem{
		{OrgID: orgA, Name: "oven.png", Key: "broll/org-a/1.png", Keywords: []string{"oven", "bake"}, Still: true, Width: 640, Height: 480},
		{OrgID: orgA, Name: "garden.mp4", Key: "broll/org-a/2.mp4", Keywords: []string{"garden"}, Width: 1280, Height: 720, DurationSec: 4.5},
		{OrgID: orgB, Name: "theirs.png", Key: "broll/org-b/3.png", Keywords: []string{"secret"}, Still: true, Width: 2, Height: 2},
	} {
		if err := e.st.AddBrollItem(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	rec := e.get(t, "/ui/broll", e.login(t, e.keyA))
	wantStatus(t, rec, http.StatusOK)
	body := rec.Body.String()
	for _, want := range []string{"<td>oven.png</td><td>image</td><td>640×480</td><td>oven, bake</td>", "<td>garden.mp4</td><td>video, 4.5 s</td><td>1280×720</td><td>garden</td>", `<a href="/ui/broll">B-roll</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("b-roll page lacks %s", want)
		}
	}
	if strings.Contains(body, "theirs.png") {
		t.Error("the page shows another org's b-roll")
	}
	rec = e.get(t, "/ui/broll", e.login(t, e.keyB))
	if body := rec.Body.String(); strings.Contains(body, "oven.png") || !strings.Contains(body, "theirs.png") {
		t.Errorf("org B's page:\n%s", body)
	}
	wantToLogin(t, e.get(t, "/ui/broll", nil))
}
