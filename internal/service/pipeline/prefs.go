package pipeline

import (
	"net/url"
	"path"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/sources"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// The project record keeps the create request's preferences (curationPref,
// renderPref, brandTemplateId, uploadedVideoAttr, conclusionActions) and its
// videoUrl as sent: the one truth the API also shows.

func curationPref(p *store.Project) apitypes.CurationPref {
	if p.CurationPref != nil {
		return *p.CurationPref
	}
	return apitypes.CurationPref{}
}

func renderPref(p *store.Project) apitypes.RenderPref {
	if p.RenderPref != nil {
		return *p.RenderPref
	}
	return apitypes.RenderPref{}
}

func videoURL(p *store.Project) string { return p.VideoURL }

// brandTemplateID is the template the project renders with; "" is the org's default.
func brandTemplateID(p *store.Project) string {
	if p.BrandTemplateID != nil {
		return *p.BrandTemplateID
	}
	return ""
}

// videoTitle is what clips call their source: the uploadedVideoAttr title,
// else the file name of the link, else a plain description.
func videoTitle(p *store.Project) string {
	if a := p.UploadedVideoAttr; a != nil && strings.TrimSpace(a.Title) != "" {
		return strings.TrimSpace(a.Title)
	}
	src, err := sources.Classify(videoURL(p))
	switch {
	case err != nil:
		return "the video"
	case src.Kind == sources.KindUpload:
		return "the uploaded video"
	case src.Kind == sources.KindPage:
		return "the " + src.Site + " video"
	}
	name, err := url.PathUnescape(path.Base(src.URL.Path))
	if err == nil && name != "" && name != "/" && name != "." {
		return strings.TrimSuffix(name, path.Ext(name))
	}
	return "the video at " + src.URL.Hostname()
}
