package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// diagText joins the details of every error so tests can match messages.
func diagText(diags diag.Diagnostics) string {
	var parts []string
	for _, d := range diags.Errors() {
		parts = append(parts, d.Summary()+": "+d.Detail())
	}
	return strings.Join(parts, "\n")
}

// checkDiags fails unless the diagnostics match want ("" = no error).
func checkDiags(t *testing.T, diags diag.Diagnostics, want string) {
	t.Helper()
	got := diagText(diags)
	if want == "" {
		if diags.HasError() {
			t.Fatalf("unexpected error: %s", got)
		}
		return
	}
	if !diags.HasError() {
		t.Fatalf("expected an error matching %q, got none", want)
	}
	if !regexp.MustCompile(want).MatchString(got) {
		t.Fatalf("error %q does not match %q", got, want)
	}
}

func runString(v validator.String, p path.Path, value types.String) diag.Diagnostics {
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: value}, resp)
	return resp.Diagnostics
}

func TestStringValidators(t *testing.T) {
	p := path.Root("x")
	cases := []struct {
		name  string
		v     validator.String
		value types.String
		want  string
	}{
		{"url ok", httpURL(), types.StringValue("https://hooks.example.com/clipper"), ""},
		{"url http ok", httpURL(), types.StringValue("http://127.0.0.1:9000/hook"), ""},
		{"url ftp", httpURL(), types.StringValue("ftp://example.com/x"), `x must be an absolute http or https URL: .*scheme "ftp"`},
		{"url no host", httpURL(), types.StringValue("https:///path"), `x must be an absolute http or https URL: .*no host`},
		{"url relative", httpURL(), types.StringValue("example.com/hook"), `scheme ""`},
		{"url null", httpURL(), types.StringNull(), ""},
		{"url unknown", httpURL(), types.StringUnknown(), ""},

		{"video url", videoURL(), types.StringValue("https://www.youtube.com/watch?v=abc"), ""},
		{"video upload id", videoURL(), types.StringValue("upl_01HXYZ-abc.def"), ""},
		{"video bad scheme", videoURL(), types.StringValue("file:///tmp/a.mp4"), `x must be an http or https URL or an upload id: .*scheme "file"`},
		{"video spaces", videoURL(), types.StringValue("my video.mp4"), `x must be an http or https URL or an upload id \(letters`},
		{"video path", videoURL(), types.StringValue("/tmp/a.mp4"), `upload id`},

		{"email ok", emailAddress(), types.StringValue("ops@example.com"), ""},
		{"email no at", emailAddress(), types.StringValue("ops.example.com"), `x must be an email address such as ops@example.com`},
		{"email display name", emailAddress(), types.StringValue("Ops <ops@example.com>"), `not a bare address`},
		{"email empty", emailAddress(), types.StringValue(""), `email address`},

		{"ratio ok", ratio(), types.StringValue("9:16"), ""},
		{"ratio zero", ratio(), types.StringValue("0:16"), `x must be a ratio w:h of two positive integers such as 9:16: .*zero side`},
		{"ratio words", ratio(), types.StringValue("portrait"), `not of the form w:h`},
		{"ratio negative", ratio(), types.StringValue("-9:16"), `not of the form w:h`},
		{"ratio decimal", ratio(), types.StringValue("1.5:1"), `not of the form w:h`},

		{"color 6", hexColor(), types.StringValue("#FFCC00"), ""},
		{"color 3", hexColor(), types.StringValue("#fc0"), ""},
		{"color 8", hexColor(), types.StringValue("#FFCC0080"), ""},
		{"color name", hexColor(), types.StringValue("yellow"), `x must be a hex color such as #FFCC00`},
		{"color no hash", hexColor(), types.StringValue("FFCC00"), `hex color`},
		{"color 5", hexColor(), types.StringValue("#FFCC0"), `hex color`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkDiags(t, runString(tc.v, p, tc.value), tc.want)
		})
	}
}

func TestLocalFileValidator(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/video.mp4"
	if err := writeFile(file, "not really a video"); err != nil {
		t.Fatal(err)
	}
	p := path.Root("source_file")
	checkDiags(t, runString(localFile(), p, types.StringValue(file)), "")
	checkDiags(t, runString(localFile(), p, types.StringValue(dir+"/missing.mp4")), `source_file must be the path of an existing file: .*no such file`)
	checkDiags(t, runString(localFile(), p, types.StringValue(dir)), `source_file must be the path of a regular file`)
}

func pairs(t *testing.T, items ...[]attr.Value) types.List {
	t.Helper()
	elems := make([]attr.Value, 0, len(items))
	for _, it := range items {
		elems = append(elems, types.ListValueMust(types.Float64Type, it))
	}
	return types.ListValueMust(types.ListType{ElemType: types.Float64Type}, elems)
}

func f(v float64) attr.Value { return types.Float64Value(v) }

func TestClipDurationsValidator(t *testing.T) {
	p := path.Root("curation").AtName("clip_durations")
	cases := []struct {
		name  string
		value types.List
		want  string
	}{
		{"ok", pairs(t, []attr.Value{f(10), f(30)}, []attr.Value{f(0), f(60)}), ""},
		{"min equals max", pairs(t, []attr.Value{f(30), f(30)}), `curation.clip_durations\[0\]: min \(30\) must be less than max \(30\)`},
		{"min above max", pairs(t, []attr.Value{f(10), f(30)}, []attr.Value{f(60), f(15)}), `curation.clip_durations\[1\]: min \(60\) must be less than max \(15\)`},
		{"negative", pairs(t, []attr.Value{f(-1), f(30)}), `clip_durations\[0\]: min \(-1\) must be 0 or more seconds`},
		{"triple", pairs(t, []attr.Value{f(1), f(2), f(3)}), `clip_durations\[0\] must be a pair \[min, max\] of seconds, got 3 values`},
		{"single", pairs(t, []attr.Value{f(1)}), `got 1 values`},
		{"null bound", pairs(t, []attr.Value{types.Float64Null(), f(3)}), `without nulls`},
		{"unknown bound", pairs(t, []attr.Value{types.Float64Unknown(), f(3)}), ""},
		{"null list", types.ListNull(types.ListType{ElemType: types.Float64Type}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := &validator.ListResponse{}
			clipDurations().ValidateList(context.Background(), validator.ListRequest{Path: p, ConfigValue: tc.value}, resp)
			checkDiags(t, resp.Diagnostics, tc.want)
		})
	}
}

func runObject(v validator.Object, p path.Path, value types.Object) diag.Diagnostics {
	resp := &validator.ObjectResponse{}
	v.ValidateObject(context.Background(), validator.ObjectRequest{Path: p, ConfigValue: value}, resp)
	return resp.Diagnostics
}

func TestRangeValidator(t *testing.T) {
	rt := map[string]attr.Type{"start_sec": types.Float64Type, "end_sec": types.Float64Type}
	mk := func(start, end attr.Value) types.Object {
		return types.ObjectValueMust(rt, map[string]attr.Value{"start_sec": start, "end_sec": end})
	}
	p := path.Root("curation").AtName("range")
	checkDiags(t, runObject(curationRange(), p, mk(f(0), f(60))), "")
	checkDiags(t, runObject(curationRange(), p, mk(f(60), f(30))), `curation.range: start_sec \(60\) must be less than end_sec \(30\)`)
	checkDiags(t, runObject(curationRange(), p, mk(f(30), f(30))), `start_sec \(30\) must be less than end_sec \(30\)`)
	checkDiags(t, runObject(curationRange(), p, mk(f(-5), f(30))), `start_sec \(-5\) must be 0 or more`)
	checkDiags(t, runObject(curationRange(), p, mk(types.Float64Null(), f(30))), `curation.range needs both start_sec and end_sec`)
	checkDiags(t, runObject(curationRange(), p, mk(types.Float64Unknown(), f(30))), "")
	checkDiags(t, runObject(curationRange(), p, types.ObjectNull(rt)), "")
}

func TestCurationModelValidator(t *testing.T) {
	ct := curationType.AttrTypes
	mk := func(set map[string]attr.Value) types.Object {
		vals := map[string]attr.Value{}
		for name, typ := range ct {
			v, err := jsonToValue(typ, nil)
			if err != nil {
				t.Fatal(err)
			}
			vals[name] = v
		}
		for k, v := range set {
			vals[k] = v
		}
		return types.ObjectValueMust(ct, vals)
	}
	keywords := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("golang")})
	prompt := types.StringValue("the funniest moments")
	p := path.Root("curation")

	checkDiags(t, runObject(curationModelRules(), p, mk(map[string]attr.Value{"topic_keywords": keywords})), "")
	checkDiags(t, runObject(curationModelRules(), p, mk(map[string]attr.Value{
		"model": types.StringValue("ClipBasic"), "topic_keywords": keywords})), "")
	checkDiags(t, runObject(curationModelRules(), p, mk(map[string]attr.Value{
		"model": types.StringValue("ClipAnything"), "custom_prompt": prompt})), "")
	checkDiags(t, runObject(curationModelRules(), p, mk(map[string]attr.Value{
		"model": types.StringValue("ClipAnything"), "topic_keywords": keywords})),
		`curation.topic_keywords applies only when curation.model is ClipBasic \(the default\); model is ClipAnything`)
	checkDiags(t, runObject(curationModelRules(), p, mk(map[string]attr.Value{"custom_prompt": prompt})),
		`curation.custom_prompt applies only when curation.model is ClipAnything; model is ClipBasic`)
	checkDiags(t, runObject(curationModelRules(), p, mk(map[string]attr.Value{
		"model": types.StringUnknown(), "custom_prompt": prompt})), "")
}

func TestConclusionActionValidator(t *testing.T) {
	mk := func(typ, url, email string) types.Object {
		str := func(s string) attr.Value {
			if s == "" {
				return types.StringNull()
			}
			return types.StringValue(s)
		}
		return types.ObjectValueMust(conclusionActionType.AttrTypes, map[string]attr.Value{
			"type": str(typ), "url": str(url), "email": str(email), "notify_failure": types.BoolValue(false),
		})
	}
	p := path.Root("conclusion_actions").AtListIndex(0)
	checkDiags(t, runObject(conclusionActionRules(), p, mk("WEBHOOK", "https://example.com/h", "")), "")
	checkDiags(t, runObject(conclusionActionRules(), p, mk("EMAIL", "", "ops@example.com")), "")
	checkDiags(t, runObject(conclusionActionRules(), p, mk("EMAIL", "", "")), `conclusion_actions\[0\].email is required when type is EMAIL`)
	checkDiags(t, runObject(conclusionActionRules(), p, mk("WEBHOOK", "", "")), `conclusion_actions\[0\].url is required when type is WEBHOOK`)
	checkDiags(t, runObject(conclusionActionRules(), p, mk("WEBHOOK", "https://example.com/h", "ops@example.com")),
		`conclusion_actions\[0\].email does not apply when type is WEBHOOK`)
	checkDiags(t, runObject(conclusionActionRules(), p, mk("EMAIL", "https://example.com/h", "ops@example.com")),
		`conclusion_actions\[0\].url does not apply when type is EMAIL`)
	// An unknown type is reported by the type's own OneOf validator.
	checkDiags(t, runObject(conclusionActionRules(), p, mk("SMS", "", "")), "")
}
