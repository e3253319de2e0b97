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
			req := planmodifier.StringRequest{
				Path:        path.Root("source_file"),
				State:       tfsdk.State{Schema: sourceSchema, Raw: sourceValues("", tc.stateFile, tc.stateHash, "UPLOADED")},
				Plan:        tfsdk.Plan{Schema: sourceSchema, Raw: sourceValues("", tc.configFile, tc.configHsh, "UPLOADED")},
				Config:      tfsdk.Config{Schema: sourceSchema, Raw: sourceValues("", tc.configFile, tc.configHsh, "")},
				StateValue:  strOrNull(tc.stateFile),
				PlanValue:   strOrNull(tc.configFile),
				ConfigValue: strOrNull(tc.configFile),
			}
			resp := &planmodifier.StringResponse{PlanValue: req.PlanValue}
			SourceFileRequiresReplace().PlanModifyString(context.Background(), req, resp)
			if resp.Diagnostics.HasError() {
				t.Fatal(resp.Diagnostics)
			}
			if resp.RequiresReplace != tc.want {
				t.Fatalf("RequiresReplace = %t, want %t", resp.RequiresReplace, tc.want)
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
			req := planmodifier.StringRequest{
				Path:        path.Root("video_url"),
				State:       tfsdk.State{Schema: sourceSchema, Raw: sourceValues(tc.stateURL, "", "", tc.platform)},
				Plan:        tfsdk.Plan{Schema: sourceSchema, Raw: sourceValues(tc.configURL, tc.configFile, "", tc.platform)},
				Config:      tfsdk.Config{Schema: sourceSchema, Raw: sourceValues(tc.configURL, tc.configFile, "", "")},
				StateValue:  strOrNull(tc.stateURL),
				PlanValue:   strOrNull(tc.configURL),
				ConfigValue: strOrNull(tc.configURL),
			}
			resp := &planmodifier.StringResponse{PlanValue: req.PlanValue}
			VideoURLRequiresReplace().PlanModifyString(context.Background(), req, resp)
			if resp.Diagnostics.HasError() {
				t.Fatal(resp.Diagnostics)
			}
			if resp.RequiresReplace != tc.want {
				t.Fatalf("RequiresReplace = %t, want %t", resp.RequiresReplace, tc.want)
			}
		})
	}
}
