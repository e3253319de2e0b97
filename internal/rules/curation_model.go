package rules

import (
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// CurationModel checks the curation arguments that apply to one model only
// (service-interface.md, POST /api/clip-projects): topicKeywords to ClipBasic,
// customPrompt to ClipAnything. model "" is the default, ClipBasic; that model
// is one of apitypes.Models is checked apart. topicKeywords and customPrompt
// say whether those arguments are set.
func CurationModel(model string, topicKeywords, customPrompt bool, n Names) error {
	shown := model
	if model == "" {
		model, shown = apitypes.ModelClipBasic, apitypes.ModelClipBasic+" (the default)"
	}
	if topicKeywords && model != apitypes.ModelClipBasic {
		return &Error{Field: n("topicKeywords"), Rule: fmt.Sprintf("applies to model %s only, and model is %s; use %s with %s",
			apitypes.ModelClipBasic, shown, n("customPrompt"), apitypes.ModelClipAnything)}
	}
	if customPrompt && model != apitypes.ModelClipAnything {
		return &Error{Field: n("customPrompt"), Rule: fmt.Sprintf("applies to model %s only, and model is %s; use %s with %s",
			apitypes.ModelClipAnything, shown, n("topicKeywords"), apitypes.ModelClipBasic)}
	}
	return nil
}
