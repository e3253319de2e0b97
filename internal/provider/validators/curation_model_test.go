package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestCurationModel(t *testing.T) {
	ct := map[string]attr.Type{
		"model": types.StringType, "topic_keywords": types.ListType{ElemType: types.StringType}, "custom_prompt": types.StringType,
	}
	mk := func(model types.String, keywords types.List, prompt types.String) types.Object {
		return types.ObjectValueMust(ct, map[string]attr.Value{"model": model, "topic_keywords": keywords, "custom_prompt": prompt})
	}
	keywords := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("golang")})
	noKeywords := types.ListNull(types.StringType)
	prompt := types.StringValue("the funniest moments")
	noPrompt := types.StringNull()
	p := path.Root("curation")
	cases := []struct {
		name  string
		value types.Object
		at    path.Path
		want  string
	}{
		{"keywords, default model", mk(types.StringNull(), keywords, noPrompt), p, ""},
		{"keywords with ClipBasic", mk(types.StringValue("ClipBasic"), keywords, noPrompt), p, ""},
		{"prompt with ClipAnything", mk(types.StringValue("ClipAnything"), noKeywords, prompt), p, ""},
		{"keywords with ClipAnything", mk(types.StringValue("ClipAnything"), keywords, noPrompt), p.AtName("topic_keywords"),
			`^curation\.topic_keywords: applies to model ClipBasic only, and model is ClipAnything; use custom_prompt with ClipAnything$`},
		{"prompt, default model", mk(types.StringNull(), noKeywords, prompt), p.AtName("custom_prompt"),
			`^curation\.custom_prompt: applies to model ClipAnything only, and model is ClipBasic \(the default\); use topic_keywords with ClipBasic$`},
		{"unknown keywords are set", mk(types.StringValue("ClipAnything"), types.ListUnknown(types.StringType), noPrompt),
			p.AtName("topic_keywords"), `applies to model ClipBasic only`},
		{"unknown model", mk(types.StringUnknown(), noKeywords, prompt), p, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, runObject(CurationModel(), p, tc.value), tc.at, tc.want)
		})
	}
}
