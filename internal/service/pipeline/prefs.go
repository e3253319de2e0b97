package pipeline

import (
	"net/url"
	"path"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// The project echoes the create request; these read the preferences from
// the project first and fall back to the request as received.

func curationPref(p *store.Project) apitypes.CurationPref {
	switch {
	case p.CurationPref != nil:
		return *p.CurationPref
	case p.Request.CurationPref != nil:
		return *p.Request.CurationPref
	}
	return apitypes.CurationPref{}
}

func renderPref(p *store.Project) apitypes.RenderPref {
	switch {
	case p.RenderPref != nil:
		return *p.RenderPref
	case p.Request.RenderPref != nil:
		return *p.Request.RenderPref
	}
	return apitypes.RenderPref{}
}

func videoURL(p *store.Project) string {
	if p.Request.VideoURL != "" {
		return p.Request.VideoURL
	}
	if p.SourceURI != nil && *p.SourceURI != "" {
		return *p.SourceURI
	}
	return p.SourceID
}

func brandTemplateID(p *store.Project) string {
	if p.BrandTemplateID != nil && *p.BrandTemplateID != "" {
		return *p.BrandTemplateID
	}
	return p.Request.BrandTemplateID
}

// videoTitle is what clips call their source: the uploadedVideoAttr title,
// else the file name of the link, else a plain description.
func videoTitle(p *store.Project) string {
	for _, a := range []*apitypes.UploadedVideoAttr{p.UploadedVideoAttr, p.Request.UploadedVideoAttr} {
		if a != nil && strings.TrimSpace(a.Title) != "" {
			return strings.TrimSpace(a.Title)
		}
	}
	kind, plat, u := classify(videoURL(p), "")
	switch kind {
	case kindUpload:
		return "the uploaded video"
	case kindPlatform:
		return "the " + plat.name + " video"
	case kindLink:
		name, err := url.PathUnescape(path.Base(u.Path))
		if err == nil && name != "" && name != "/" && name != "." {
			return strings.TrimSuffix(name, path.Ext(name))
		}
		return "the video at " + u.Hostname()
	}
	return "the video"
}
