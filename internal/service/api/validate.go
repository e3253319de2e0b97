package api

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
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
	if err := checkCreateLengths(req); err != nil {
		return err
	}

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
	if err := rules.ConclusionActionCount(len(req.ConclusionActions)); err != nil {
		return ruleError("conclusionActions", err)
	}
	for i, act := range req.ConclusionActions {
		if err := rules.ConclusionAction(act.Type, act.URL, act.Email); err != nil {
			return ruleError(fmt.Sprintf("conclusionActions[%d]", i), err)
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
		if err := rules.Range(r.StartSec, r.EndSec, rules.APINames); err != nil {
			return ruleError("curationPref.range", err)
		}
	}
	for i, d := range c.ClipDurations {
		if err := rules.ClipDuration(d[:]); err != nil {
			return ruleError(fmt.Sprintf("curationPref.clipDurations[%d]", i), err)
		}
	}
	if err := rules.CurationModel(c.Model, len(c.TopicKeywords) > 0, c.CustomPrompt != "", rules.APINames); err != nil {
		return ruleError("curationPref", err)
	}
	return nil
}

func checkRender(p *apitypes.RenderPref) error {
	if p.LayoutAspectRatio != "" && !slices.Contains(apitypes.AspectRatios, p.LayoutAspectRatio) {
		return badField("renderPref.layoutAspectRatio", "must be one of %s, not %q",
			strings.Join(apitypes.AspectRatios, ", "), p.LayoutAspectRatio)
	}
	if p.FitLayoutCropRatio != "" {
		if err := rules.Ratio(p.FitLayoutCropRatio); err != nil {
			return ruleError("renderPref.fitLayoutCropRatio", err)
		}
	}
	if f := p.Font; f != nil && f.NumericalSize != nil {
		if err := rules.FontSize(*f.NumericalSize); err != nil {
			return ruleError("renderPref.font.numericalSize", err)
		}
	}
	if e := p.EmojiStyle; e != nil {
		if err := checkRect("renderPref.emojiStyle.rect", e.Rect); err != nil {
			return err
		}
	}
	for i, n := range p.SelectedTransitions {
		if err := rules.Transition(n); err != nil {
			return ruleError(fmt.Sprintf("renderPref.selectedTransitions[%d]", i), err)
		}
	}
	for i, o := range p.ScreenOverlays {
		if err := checkRect(fmt.Sprintf("renderPref.screenOverlays[%d].rect", i), o.Rect); err != nil {
			return err
		}
	}
	return nil
}

// checkRect checks a placement rectangle at field, when there is one.
func checkRect(field string, r *apitypes.Rect) error {
	if r == nil {
		return nil
	}
	if err := rules.Rect(r.XPct, r.YPct, r.WPct, r.HPct, rules.APINames); err != nil {
		return ruleError(field, err)
	}
	return nil
}

// ruleError turns a broken rule of package rules into a fieldError: field is
// where the checked value sits in the request, and the field the rule names,
// if any, is a child of it.
func ruleError(field string, err error) error {
	var broken *rules.Error
	if !errors.As(err, &broken) {
		return badField(field, "%s", err)
	}
	if broken.Field != "" {
		field += "." + broken.Field
	}
	return badField(field, "%s", broken.Rule)
}

// textField is a free-text field of a request body and its longest length
// (rules.Max*).
type textField struct {
	name  string
	value string
	max   int
}

// checkLengths returns the first field longer than its rule allows.
func checkLengths(fields ...textField) error {
	for _, f := range fields {
		if err := rules.Length(f.value, f.max); err != nil {
			return ruleError(f.name, err)
		}
	}
	return nil
}

// checkCreateLengths bounds the free text of a create request.
func checkCreateLengths(req *apitypes.CreateProjectRequest) error {
	fields := []textField{
		{"videoUrl", req.VideoURL, rules.MaxURL},
		{"brandTemplateId", req.BrandTemplateID, rules.MaxID},
	}
	if c := req.CurationPref; c != nil {
		fields = append(fields,
			textField{"curationPref.customPrompt", c.CustomPrompt, rules.MaxPrompt},
			textField{"curationPref.genre", c.Genre, rules.MaxKeyword},
			textField{"curationPref.forceStrategy", c.ForceStrategy, rules.MaxKeyword})
		if err := rules.Count(len(c.TopicKeywords), rules.MaxKeywords); err != nil {
			return ruleError("curationPref.topicKeywords", err)
		}
		for i, k := range c.TopicKeywords {
			fields = append(fields, textField{fmt.Sprintf("curationPref.topicKeywords[%d]", i), k, rules.MaxKeyword})
		}
	}
	if p := req.ImportPref; p != nil {
		fields = append(fields, textField{"importPref.sourceLang", p.SourceLang, rules.MaxSourceLang})
	}
	if v := req.UploadedVideoAttr; v != nil {
		fields = append(fields, textField{"uploadedVideoAttr.title", v.Title, rules.MaxTitle})
	}
	for i, act := range req.ConclusionActions {
		fields = append(fields,
			textField{fmt.Sprintf("conclusionActions[%d].url", i), act.URL, rules.MaxURL},
			textField{fmt.Sprintf("conclusionActions[%d].email", i), act.Email, rules.MaxText})
	}
	return checkLengths(fields...)
}
