package api

import (
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// normalizeCreate fills the defaults of a create request and checks every
// rule that needs no lookup; the first broken rule is returned as a
// fieldError naming the field. It leaves videoUrl's meaning (link or upload
// id) to classifyVideoURL and the brand template to the store.
func normalizeCreate(req *apitypes.CreateProjectRequest) error {
	// importPref is the documented name; importPreference an alias some
	// examples use. The documented one wins when both are sent.
	if req.ImportPref == nil {
		req.ImportPref = req.ImportPreference
	}
	req.ImportPreference = nil

	req.VideoURL = strings.TrimSpace(req.VideoURL)
	if req.VideoURL == "" {
		return badField("videoUrl", "is required: a public video address or an uploadId from POST /api/upload-links")
	}
	req.BrandTemplateID = strings.TrimSpace(req.BrandTemplateID)

	if req.CurationPref == nil {
		req.CurationPref = &apitypes.CurationPref{}
	}
	if err := checkCuration(req.CurationPref); err != nil {
		return err
	}
	if req.RenderPref != nil {
		if err := checkRender(req.RenderPref); err != nil {
			return err
		}
	}
	for i, act := range req.ConclusionActions {
		if err := checkAction(i, act); err != nil {
			return err
		}
	}
	return nil
}

func checkCuration(c *apitypes.CurationPref) error {
	if c.Model == "" {
		c.Model = apitypes.ModelClipBasic
	}
	if !slices.Contains(apitypes.Models, c.Model) {
		return badField("curationPref.model", "must be one of %s, not %q", strings.Join(apitypes.Models, ", "), c.Model)
	}
	if r := c.Range; r != nil {
		switch {
		case r.StartSec == nil || r.EndSec == nil:
			return badField("curationPref.range", "startSec and endSec are both required when range is sent; omit range to clip the whole video")
		case *r.StartSec < 0:
			return badField("curationPref.range.startSec", "must be >= 0, not %v", *r.StartSec)
		case *r.EndSec < 0:
			return badField("curationPref.range.endSec", "must be >= 0, not %v", *r.EndSec)
		case *r.StartSec >= *r.EndSec:
			return badField("curationPref.range", "startSec (%v) must be less than endSec (%v)", *r.StartSec, *r.EndSec)
		}
	}
	for i, d := range c.ClipDurations {
		if !(d[0] >= 0 && d[0] < d[1]) {
			return badField(fmt.Sprintf("curationPref.clipDurations[%d]", i),
				"must be a pair [min, max] of seconds with 0 <= min < max, not [%v, %v]", d[0], d[1])
		}
	}
	if len(c.TopicKeywords) > 0 && c.Model != apitypes.ModelClipBasic {
		return badField("curationPref.topicKeywords", "applies to model ClipBasic only, and model is %s", c.Model)
	}
	if c.CustomPrompt != "" && c.Model != apitypes.ModelClipAnything {
		return badField("curationPref.customPrompt", "applies to model ClipAnything only, and model is %s", c.Model)
	}
	return nil
}

func checkRender(p *apitypes.RenderPref) error {
	if p.LayoutAspectRatio != "" && !slices.Contains(apitypes.AspectRatios, p.LayoutAspectRatio) {
		return badField("renderPref.layoutAspectRatio", "must be one of %s, not %q",
			strings.Join(apitypes.AspectRatios, ", "), p.LayoutAspectRatio)
	}
	if p.FitLayoutCropRatio != "" && !validRatio(p.FitLayoutCropRatio) {
		return badField("renderPref.fitLayoutCropRatio", "must be a ratio w:h of two positive numbers such as 9:16, not %q",
			p.FitLayoutCropRatio)
	}
	return nil
}

func validRatio(s string) bool {
	w, h, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	for _, part := range []string{w, h} {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || !(v > 0) || v > 1e6 {
			return false
		}
	}
	return true
}

func checkAction(i int, act apitypes.ConclusionAction) error {
	field := fmt.Sprintf("conclusionActions[%d]", i)
	switch act.Type {
	case apitypes.ActionWebhook:
		u, err := url.Parse(act.URL)
		if act.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return badField(field+".url", "a WEBHOOK action needs an absolute http(s) url, not %q", act.URL)
		}
	case apitypes.ActionEmail:
		addr, err := mail.ParseAddress(act.Email)
		if act.Email == "" || err != nil || addr.Address != act.Email {
			return badField(field+".email", "an EMAIL action needs a plain email address such as name@example.com, not %q", act.Email)
		}
	default:
		return badField(field+".type", "must be WEBHOOK or EMAIL, not %q", act.Type)
	}
	return nil
}
