package pipeline

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// TestCompletionEmailSignsAddresses: with MediaLinks the completion email
// hands out signed clip addresses that verify, public ones for a PUBLIC
// project; the clips themselves keep the stored address.
func TestCompletionEmailSignsAddresses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	links := medialink.New(e.st, publicURL, 0, 0, nil)
	e.cfg.MediaLinks = links
	r, err := e.newRunner()
	if err != nil {
		t.Fatal(err)
	}
	stored := publicURL + "/media/prj_1/c1.mp4"
	clips := []store.Clip{{ID: "prj_1.c1", ProjectID: "prj_1", CurationID: "c1", Title: "One", URIForExport: stored, URIForPreview: publicURL + "/media/prj_1/c1.preview.mp4"}}
	for _, c := range []struct {
		visibility string
		public     bool
	}{{apitypes.VisibilityDefault, false}, {apitypes.VisibilityPublicView, true}} {
		p := &store.Project{ID: "prj_1", Stage: apitypes.StageComplete, Visibility: c.visibility}
		mailed, err := r.signedClips(context.Background(), p, clips)
		if err != nil {
			t.Fatal(err)
		}
		text := r.email(p, mailed).Text
		for _, addr := range []string{mailed[0].URIForExport, mailed[0].URIForPreview} {
			u, err := url.Parse(addr)
			if err != nil || !strings.Contains(text, addr) {
				t.Fatalf("%s email %q lacks the address %q", c.visibility, text, addr)
			}
			_, file, _ := medialink.Parse(u.Path)
			if public, err := links.Check(context.Background(), "prj_1", file, u.Query()); err != nil || public != c.public {
				t.Errorf("%s address %q: public %v, %v; want public %v", c.visibility, addr, public, err, c.public)
			}
		}
	}
	if clips[0].URIForExport != stored {
		t.Errorf("the clip's own address changed to %q", clips[0].URIForExport)
	}
}
