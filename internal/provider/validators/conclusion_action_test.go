package validators

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestConclusionAction(t *testing.T) {
	at := map[string]attr.Type{"type": types.StringType, "url": types.StringType, "email": types.StringType, "notify_failure": types.BoolType}
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	mk := func(typ, url types.String, email string) types.Object {
		return types.ObjectValueMust(at, map[string]attr.Value{
			"type": typ, "url": url, "email": str(email), "notify_failure": types.BoolValue(false),
		})
	}
	webhook, mail := types.StringValue("WEBHOOK"), types.StringValue("EMAIL")
	p := path.Root("conclusion_actions").AtListIndex(0)
	cases := []struct {
		name  string
		value types.Object
		at    path.Path
		want  string
	}{
		{"webhook", mk(webhook, str("https://example.com/h"), ""), p, ""},
		{"email", mk(mail, str(""), "ops@example.com"), p, ""},
		{"email without email", mk(mail, str(""), ""), p.AtName("email"),
			`^conclusion_actions\[0\]\.email: an EMAIL action needs an email address such as ops@example\.com to send to$`},
		{"email bad address", mk(mail, str(""), "not-an-address"), p.AtName("email"),
			`^conclusion_actions\[0\]\.email: must be an email address such as ops@example\.com: "not-an-address"`},
		{"webhook without url", mk(webhook, str(""), ""), p.AtName("url"),
			`^conclusion_actions\[0\]\.url: a WEBHOOK action needs an absolute http\(s\) url to post to$`},
		{"webhook mailto url", mk(webhook, str("mailto:ops@example.com"), ""), p.AtName("url"),
			`^conclusion_actions\[0\]\.url: must be an absolute http or https URL: .*scheme "mailto"`},
		{"webhook with email", mk(webhook, str("https://example.com/h"), "ops@example.com"), p.AtName("email"),
			`^conclusion_actions\[0\]\.email: does not apply when type is WEBHOOK; remove it$`},
		{"email with url", mk(mail, str("https://example.com/h"), "ops@example.com"), p.AtName("url"),
			`^conclusion_actions\[0\]\.url: does not apply when type is EMAIL; remove it$`},
		// An unknown type is reported by the type's own OneOf validator.
		{"unknown type", mk(types.StringValue("SMS"), str(""), ""), p, ""},
		{"url not known yet", mk(webhook, types.StringUnknown(), ""), p, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, runObject(ConclusionAction(), p, tc.value), tc.at, tc.want)
		})
	}
}
