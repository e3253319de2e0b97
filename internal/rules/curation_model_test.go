package rules

import "testing"

func TestCurationModel(t *testing.T) {
	cases := []struct {
		name             string
		model            string
		keywords, prompt bool
		names            Names
		field, want      string
	}{
		{"nothing model-specific", "", false, false, APINames, "", ""},
		{"keywords, default model", "", true, false, APINames, "", ""},
		{"keywords with ClipBasic", "ClipBasic", true, false, APINames, "", ""},
		{"prompt with ClipAnything", "ClipAnything", false, true, APINames, "", ""},
		{"keywords with ClipAnything", "ClipAnything", true, false, APINames, "topicKeywords",
			"applies to model ClipBasic only, and model is ClipAnything; use customPrompt with ClipAnything"},
		{"keywords with ClipAnything, attribute names", "ClipAnything", true, false, AttributeNames, "topic_keywords",
			"use custom_prompt with ClipAnything"},
		{"prompt, default model", "", false, true, APINames, "customPrompt",
			"applies to model ClipAnything only, and model is ClipBasic (the default); use topicKeywords with ClipBasic"},
		{"prompt with ClipBasic", "ClipBasic", false, true, AttributeNames, "custom_prompt",
			"applies to model ClipAnything only, and model is ClipBasic; use topic_keywords with ClipBasic"},
		{"keywords with an unknown model", "ClipEverything", true, false, APINames, "topicKeywords", "model is ClipEverything"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantBroken(t, CurationModel(tc.model, tc.keywords, tc.prompt, tc.names), tc.field, tc.want)
		})
	}
}
