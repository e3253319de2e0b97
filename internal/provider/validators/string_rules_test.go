package validators

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestStringRules(t *testing.T) {
	p := path.Root("x")
	cases := []struct {
		name  string
		v     validator.String
		value types.String
		want  string
	}{
		{"url ok", HTTPURL(), types.StringValue("https://hooks.example.com/clipper"), ""},
		{"url http ok", HTTPURL(), types.StringValue("http://127.0.0.1:9000/hook"), ""},
		{"url ftp", HTTPURL(), types.StringValue("ftp://example.com/x"), `^x: must be an absolute http or https URL: .*scheme "ftp"`},
		{"url no host", HTTPURL(), types.StringValue("https:///path"), `^x: must be an absolute http or https URL: .*no host`},
		{"url relative", HTTPURL(), types.StringValue("example.com/hook"), `scheme ""`},
		{"url null", HTTPURL(), types.StringNull(), ""},
		{"url unknown", HTTPURL(), types.StringUnknown(), ""},

		{"video url", VideoURL(), types.StringValue("https://www.youtube.com/watch?v=abc"), ""},
		{"video upload id", VideoURL(), types.StringValue("upl_01HXYZ-abc.def"), ""},
		{"video bad scheme", VideoURL(), types.StringValue("file:///tmp/a.mp4"), `^x: must be an http or https URL or an upload id: .*scheme "file"`},
		{"video spaces", VideoURL(), types.StringValue("my video.mp4"), `^x: must be an http or https URL or an upload id \(letters`},
		{"video path", VideoURL(), types.StringValue("/tmp/a.mp4"), `upload id`},
		{"video null", VideoURL(), types.StringNull(), ""},

		{"ratio ok", Ratio(), types.StringValue("9:16"), ""},
		// The provider once took integers only, and clipperd decimals; the
		// spec's "ratio form w:h" has no such limit, so both take 1.5:1.
		{"ratio decimal", Ratio(), types.StringValue("1.5:1"), ""},
		{"ratio zero", Ratio(), types.StringValue("0:16"), `^x: must be a ratio w:h of two positive numbers such as 9:16 or 1\.5:1, not "0:16"`},
		{"ratio words", Ratio(), types.StringValue("portrait"), `must be a ratio w:h.*not "portrait"`},
		{"ratio negative", Ratio(), types.StringValue("-9:16"), `must be a ratio w:h.*not "-9:16"`},
		{"ratio spaces", Ratio(), types.StringValue("9 : 16"), `must be a ratio w:h`},

		{"color 6", HexColor(), types.StringValue("#FFCC00"), ""},
		{"color 3", HexColor(), types.StringValue("#fc0"), ""},
		{"color 8", HexColor(), types.StringValue("#FFCC0080"), ""},
		{"color name", HexColor(), types.StringValue("yellow"), `^x: must be a hex color such as #FFCC00`},
		{"color no hash", HexColor(), types.StringValue("FFCC00"), `hex color`},
		{"color 5", HexColor(), types.StringValue("#FFCC0"), `hex color`},
		{"color unknown", HexColor(), types.StringUnknown(), ""},

		{"collection name", CollectionName(), types.StringValue("highlights"), ""},
		{"collection name blank", CollectionName(), types.StringValue("  "), `^x: is required and must not be blank$`},
		{"collection name empty", CollectionName(), types.StringValue(""), `^x: is required and must not be blank$`},
		{"collection name long", CollectionName(), types.StringValue(strings.Repeat("a", 201)), `^x: must be at most 200 characters, not 201$`},
		{"collection name unknown", CollectionName(), types.StringUnknown(), ""},

		{"content id", ContentID(), types.StringValue("3f2a9c0d.c01"), ""},
		{"content id no dot", ContentID(), types.StringValue("c01"), `^x: must be a clip id of the form \{projectId\}\.\{curationId\}, not "c01"$`},
		{"content id no project", ContentID(), types.StringValue(".c01"), `clip id of the form`},
		{"content id null", ContentID(), types.StringNull(), ""},

		{"post content id", PostContentID(), types.StringValue("3f2a9c0d.c01"), ""},
		{"post content id two dots", PostContentID(), types.StringValue("3f2a9c0d.c.01"),
			`^x: must be a clip id of the form \{projectId\}\.\{curationId\} with one dot and no spaces, not "3f2a9c0d.c.01"$`},
		{"post content id bare", PostContentID(), types.StringValue("c01"), `clip id of the form`},
		{"post content id unknown", PostContentID(), types.StringUnknown(), ""},

		{"post title", PostTitle(), types.StringValue("Our launch"), ""},
		{"post title blank", PostTitle(), types.StringValue("  "), `^x: is required and must not be blank$`},

		{"privacy", Privacy(), types.StringValue("unlisted"), ""},
		{"privacy upper", Privacy(), types.StringValue("PUBLIC"), `^x: must be one of public, private, unlisted, not "PUBLIC"$`},
		{"privacy null", Privacy(), types.StringNull(), ""},

		{"publish time utc", PublishTime(), types.StringValue("2030-01-02T15:04:05Z"), ""},
		{"publish time offset", PublishTime(), types.StringValue("2030-01-02T16:04:05+01:00"), ""},
		// Past times are the resource's business: a schedule that fired keeps its time.
		{"publish time past", PublishTime(), types.StringValue("2001-01-02T15:04:05Z"), ""},
		{"publish time date", PublishTime(), types.StringValue("2030-01-02"), `^x: must be an RFC 3339 timestamp such as 2030-01-02T15:04:05Z.*, not "2030-01-02"$`},
		{"publish time unknown", PublishTime(), types.StringUnknown(), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, runString(tc.v, p, tc.value), p, tc.want)
		})
	}
}
