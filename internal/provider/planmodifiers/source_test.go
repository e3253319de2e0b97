package planmodifiers

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// sourceSchema holds the source arguments the modifiers look at.
var sourceSchema = schema.Schema{Attributes: map[string]schema.Attribute{
	"video_url":       schema.StringAttribute{Optional: true},
	"source_file":     schema.StringAttribute{Optional: true},
	"source_hash":     schema.StringAttribute{Optional: true},
	"source_platform": schema.StringAttribute{Computed: true},
}}

// sourceValues builds a configuration or state of sourceSchema; "" is null.
func sourceValues(videoURL, file, hash, platform string) tftypes.Value {
	typ := sourceSchema.Type().TerraformType(context.Background())
	str := func(s string) tftypes.Value {
		if s == "" {
			return tftypes.NewValue(tftypes.String, nil)
		}
		return tftypes.NewValue(tftypes.String, s)
	}
	return tftypes.NewValue(typ, map[string]tftypes.Value{
		"video_url": str(videoURL), "source_file": str(file), "source_hash": str(hash), "source_platform": str(platform),
	})
}

func strOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// requiresReplace runs m on the update of attribute name from state to
// config (the plan is the configuration) and reports whether it replaces.
func requiresReplace(t *testing.T, m planmodifier.String, name string, state, config tftypes.Value, stateValue, configValue types.String) bool {
	t.Helper()
	req := planmodifier.StringRequest{
		Path:        path.Root(name),
		State:       tfsdk.State{Schema: sourceSchema, Raw: state},
		Plan:        tfsdk.Plan{Schema: sourceSchema, Raw: config},
		Config:      tfsdk.Config{Schema: sourceSchema, Raw: config},
		StateValue:  stateValue,
		PlanValue:   configValue,
		ConfigValue: configValue,
	}
	resp := &planmodifier.StringResponse{PlanValue: req.PlanValue}
	m.PlanModifyString(context.Background(), req, resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	return resp.RequiresReplace
}

func TestSourceFileRequiresReplace(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		stateFile, stateHash  string
		configFile, configHsh string
		want                  bool
	}{
		{"another path without a hash", "/a/talk.mp4", "", "/b/talk.mp4", "", true},
		{"another spelling, the same hash: the hash decides", "/a/talk.mp4", "h1", "/a/../a/talk.mp4", "h1", false},
		{"the hash dropped", "/a/talk.mp4", "h1", "/b/talk.mp4", "", true},
		{"a hash added with a new path", "/a/talk.mp4", "", "/b/talk.mp4", "h1", true},
		{"an imported project gets its path", "", "", "/a/talk.mp4", "h1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := requiresReplace(t, SourceFileRequiresReplace(), "source_file",
				sourceValues("", tc.stateFile, tc.stateHash, "UPLOADED"), sourceValues("", tc.configFile, tc.configHsh, ""),
				strOrNull(tc.stateFile), strOrNull(tc.configFile))
			if got != tc.want {
				t.Fatalf("RequiresReplace = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestVideoURLRequiresReplace(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		stateURL, platform    string
		configURL, configFile string
		want                  bool
	}{
		{"another address", "https://a.example/v.mp4", "YTDLP_LINK", "https://b.example/v.mp4", "", true},
		{"an imported upload id gives way to source_file", "upl_1", "UPLOADED", "", "/a/talk.mp4", false},
		{"a link gives way to source_file", "https://a.example/v.mp4", "YTDLP_LINK", "", "/a/talk.mp4", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := requiresReplace(t, VideoURLRequiresReplace(), "video_url",
				sourceValues(tc.stateURL, "", "", tc.platform), sourceValues(tc.configURL, tc.configFile, "", ""),
				strOrNull(tc.stateURL), strOrNull(tc.configURL))
			if got != tc.want {
				t.Fatalf("RequiresReplace = %t, want %t", got, tc.want)
			}
		})
	}
}
