package provider

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
)

// Helpers of the social posting tests, and the unit tests of what
// clipper_post_task and clipper_publish_schedule share.

func TestPostModelRequest(t *testing.T) {
	cases := []struct {
		name  string
		model postModel
		want  apitypes.PostTaskRequest
	}{
		{
			name: "every argument",
			model: postModel{ContentID: types.StringValue("prj_1.c01"), PostAccountID: types.StringValue("pa_1"),
				SubAccountID: types.StringValue("urn:li:organization:42"), Title: types.StringValue("Launch"),
				Description: types.StringValue("It ships #clips"), MediaType: types.StringValue("VIDEO"), Privacy: types.StringValue("unlisted")},
			want: apitypes.PostTaskRequest{ProjectID: "prj_1", ClipID: "c01", PostAccountID: "pa_1", SubAccountID: "urn:li:organization:42",
				PostDetail: apitypes.PostDetail{Title: "Launch", MediaType: "VIDEO",
					Custom: &apitypes.PostDetailCustom{Description: "It ships #clips", Privacy: "unlisted"}}},
		},
		{
			name: "no custom without a description or privacy",
			model: postModel{ContentID: types.StringValue("prj_1.c01"), PostAccountID: types.StringValue("pa_1"),
				SubAccountID: types.StringNull(), Title: types.StringValue("Launch"), Description: types.StringNull(),
				MediaType: types.StringNull(), Privacy: types.StringNull()},
			want: apitypes.PostTaskRequest{ProjectID: "prj_1", ClipID: "c01", PostAccountID: "pa_1", PostDetail: apitypes.PostDetail{Title: "Launch"}},
		},
		{
			name: "privacy alone",
			model: postModel{ContentID: types.StringValue("prj_1.c01"), PostAccountID: types.StringValue("pa_1"),
				Title: types.StringValue("Launch"), Privacy: types.StringValue("private")},
			want: apitypes.PostTaskRequest{ProjectID: "prj_1", ClipID: "c01", PostAccountID: "pa_1",
				PostDetail: apitypes.PostDetail{Title: "Launch", Custom: &apitypes.PostDetailCustom{Privacy: "private"}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, diags := tc.model.request()
			checkDiags(t, diags, "")
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tc.want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("request %s, want %s", gotJSON, wantJSON)
			}
		})
	}
	_, diags := (&postModel{ContentID: types.StringValue("prj_1.c.01")}).request()
	checkDiags(t, diags, `content_id: must be a clip id .* with one dot`)
}

// stateOf is the state of r holding model.
func stateOf(t *testing.T, r resource.Resource, model any) tfsdk.State {
	t.Helper()
	var schemaResp resource.SchemaResponse
	r.Schema(context.Background(), resource.SchemaRequest{}, &schemaResp)
	state := tfsdk.State{Schema: schemaResp.Schema}
	nullTimeouts(t, schemaResp.Schema, model)
	checkDiags(t, state.Set(context.Background(), model), "")
	return state
}

// nullTimeouts gives a model's zero Timeouts (a value of no type) the null
// value of the schema's timeouts argument, as a configuration without a
// timeouts block has.
func nullTimeouts(t *testing.T, s schema.Schema, model any) {
	t.Helper()
	v := reflect.ValueOf(model).Elem()
	f := v.FieldByName("Timeouts")
	if !f.IsValid() {
		return
	}
	a, ok := s.Attributes["timeouts"].(schema.SingleNestedAttribute)
	if !ok {
		t.Fatal("the model has Timeouts, the schema no timeouts argument")
	}
	tv, isTimeouts := f.Interface().(timeouts.Value)
	typ, isObject := a.GetType().(interface{ AttributeTypes() map[string]attr.Type }) // timeouts.Type or a plain object
	if !isTimeouts || !isObject {
		t.Fatalf("Timeouts is %T, the timeouts argument of type %T", f.Interface(), a.GetType())
	}
	if tv.Object.Equal(types.Object{}) {
		f.Set(reflect.ValueOf(timeouts.Value{Object: types.ObjectNull(typ.AttributeTypes())}))
	}
}

// deleteWarnings runs r's Delete on the state holding model, fails on an
// error and returns the warnings.
func deleteWarnings(t *testing.T, r resource.Resource, model any) diag.Diagnostics {
	t.Helper()
	state := stateOf(t, r, model)
	resp := &resource.DeleteResponse{State: state}
	r.Delete(context.Background(), resource.DeleteRequest{State: state}, resp)
	checkDiags(t, resp.Diagnostics, "")
	return resp.Diagnostics.Warnings()
}

// replaceDecision runs a post's plan modifier m on attribute name going
// from prior to planned, in a resource whose prior state is state.
func replaceDecision(t *testing.T, state tfsdk.State, m planmodifier.String, name string, prior, planned types.String) bool {
	t.Helper()
	req := planmodifier.StringRequest{Path: path.Root(name), State: state, Plan: tfsdk.Plan(state),
		StateValue: prior, PlanValue: planned, ConfigValue: planned}
	resp := &planmodifier.StringResponse{PlanValue: planned}
	m.PlanModifyString(context.Background(), req, resp)
	checkDiags(t, resp.Diagnostics, "")
	return resp.RequiresReplace
}

// Any change to a post task's arguments replaces it.
func TestReplacePost(t *testing.T) {
	state := stateOf(t, NewPostTaskResource(), &postModel{ID: types.StringValue("post_1"), ContentID: types.StringValue("prj_1.c01")})
	str := types.StringValue
	cases := []struct {
		name, attr     string
		prior, planned types.String
	}{
		{"a changed title", "title", str("Launch"), str("Launch day")},
		{"a sub-account set", "sub_account_id", types.StringNull(), str("urn:li:organization:42")},
		{"a description dropped", "description", str("Out now"), types.StringNull()},
		{"an unknown content id", "content_id", str("prj_1.c01"), types.StringUnknown()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !replaceDecision(t, state, replacePost(nil), tc.attr, tc.prior, tc.planned) {
				t.Error("RequiresReplace = false, want true")
			}
		})
	}
}

func TestPostFailure(t *testing.T) {
	m := &postModel{ContentID: types.StringValue("prj_1.c01"), PostAccountID: types.StringValue("pa_tw")}
	capped := &client.MonthlyCapError{ResetAt: time.Date(2030, 4, 1, 0, 0, 0, 0, time.UTC), UpgradeURL: "https://svc.example/upgrade"}
	d := postFailure("publish", m, capped)
	if d.Summary() != "Monthly API cap reached" {
		t.Errorf("summary %q", d.Summary())
	}
	for _, want := range []string{"post_account_id:", "publish clip prj_1.c01 to account pa_tw", "TWITTER account costs 1 credit",
		"Access resumes at 2030-04-01T00:00:00Z", "https://svc.example/upgrade", "--monthly-credits"} {
		if !strings.Contains(d.Detail(), want) {
			t.Errorf("detail %q lacks %q", d.Detail(), want)
		}
	}
	if withPath, ok := d.(diag.DiagnosticWithPath); !ok || !withPath.Path().Equal(path.Root("post_account_id")) {
		t.Errorf("the cap is reported at %v, want post_account_id", d)
	}

	refused := &client.APIError{StatusCode: 400, ErrorName: "Bad Request", Method: "POST", Path: "/api/publish-schedules",
		ErrorMessage: `subAccountId: is required for account "pa_tw" (LINKEDIN): its subAccountId is "urn:li:organization:42"`}
	other := postFailure("schedule", m, refused)
	withPath, ok := other.(diag.DiagnosticWithPath)
	if !ok || !withPath.Path().Equal(path.Root("sub_account_id")) || other.Summary() != "Unable to schedule clip" ||
		!strings.HasPrefix(other.Detail(), "sub_account_id: could not schedule clip prj_1.c01 to account pa_tw: ") ||
		!strings.Contains(other.Detail(), "subAccountId: is required for account") {
		t.Errorf("a refusal naming subAccountId reads %v", other)
	}
	plain := postFailure("publish", m, errors.New("connection refused"))
	if _, ok := plain.(diag.DiagnosticWithPath); ok || plain.Detail() != "Could not publish clip prj_1.c01 to account pa_tw: connection refused" {
		t.Errorf("a refusal naming no field reads %v", plain)
	}
}

// Destroying a post task forgets it, with a warning, and calls nothing.
func TestPostTaskDeleteWarns(t *testing.T) {
	warnings := deleteWarnings(t, NewPostTaskResource(), &postModel{ID: types.StringValue("post_1"),
		ContentID: types.StringValue("prj_1.c01"), PostAccountID: types.StringValue("pa_1"), Title: types.StringValue("Launch")})
	if len(warnings) != 1 || warnings[0].Summary() != "Post task forgotten, not unpublished" ||
		!strings.Contains(warnings[0].Detail(), "Post post_1 of clip prj_1.c01 to account pa_1") ||
		!strings.Contains(warnings[0].Detail(), "stays published") {
		t.Fatalf("warnings %v, want one saying post_1 stays published", warnings)
	}
}

// A planned replacement of a post, or of a schedule that fired, warns that
// the clip is published again; nothing else does.
func TestReplacingAPostWarns(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)
	schedule := &PublishScheduleResource{now: func() time.Time { return now }}
	post := &PostTaskResource{}
	scheduled := func(contentID types.String, at string) tfsdk.State {
		return stateOf(t, schedule, &publishScheduleModel{postModel: postModel{ID: types.StringValue("sch_1"),
			ContentID: contentID, PostAccountID: types.StringValue("pa_1"), Title: types.StringValue("Launch")},
			PublishAt: types.StringValue(at)})
	}
	posted := func(contentID, title types.String) tfsdk.State {
		return stateOf(t, post, &postModel{ID: types.StringValue("post_1"), ContentID: contentID,
			PostAccountID: types.StringValue("pa_1"), Title: title})
	}
	clip, launch := types.StringValue("prj_1.c01"), types.StringValue("Launch")
	null := func(s tfsdk.State) tfsdk.State {
		return tfsdk.State{Schema: s.Schema, Raw: tftypes.NewValue(s.Schema.Type().TerraformType(ctx), nil)}
	}
	const past, future = "2030-01-01T00:00:00Z", "2030-02-01T00:00:00Z"
	cases := []struct {
		name        string
		r           resource.ResourceWithModifyPlan
		prior, plan tfsdk.State
		want        string // a regexp the warning matches; "" for none
	}{
		{"a post whose content_id is unknown", post, posted(clip, launch), posted(types.StringUnknown(), launch),
			`Post post_1 will be replaced because of content_id \("prj_1.c01" -> known after apply\): this publishes the clip again`},
		{"a post with another title", post, posted(clip, launch), posted(clip, types.StringValue("Again")),
			`title \("Launch" -> "Again"\)`},
		{"an unchanged post", post, posted(clip, launch), posted(clip, launch), ""},
		{"a post created", post, null(posted(clip, launch)), posted(clip, launch), ""},
		{"a post destroyed", post, posted(clip, launch), null(posted(clip, launch)), ""},
		{"a post's first plan after an import", post, posted(types.StringNull(), types.StringNull()), posted(clip, launch), ""},
		{"a fired schedule replaced", schedule, scheduled(clip, past), scheduled(types.StringUnknown(), past),
			`Schedule sch_1, which fired at 2030-01-01T00:00:00Z, will be replaced because of content_id`},
		{"a fired schedule unchanged", schedule, scheduled(clip, past), scheduled(clip, "2030-01-01T01:00:00+01:00"), ""},
		{"a pending schedule replaced", schedule, scheduled(clip, future), scheduled(types.StringUnknown(), future), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := resource.ModifyPlanRequest{State: tc.prior, Plan: tfsdk.Plan(tc.plan), Config: tfsdk.Config(tc.plan)}
			resp := &resource.ModifyPlanResponse{Plan: req.Plan}
			tc.r.ModifyPlan(ctx, req, resp)
			checkDiags(t, resp.Diagnostics, "")
			warnings := resp.Diagnostics.Warnings()
			switch {
			case tc.want == "" && len(warnings) > 0:
				t.Fatalf("warnings %v, want none", warnings)
			case tc.want == "":
			case len(warnings) != 1 || warnings[0].Summary() != "Replacing this post publishes the clip again":
				t.Fatalf("warnings %v, want one saying the clip is published again", warnings)
			case !regexp.MustCompile(tc.want).MatchString(warnings[0].Detail()):
				t.Fatalf("warning %q does not match %q", warnings[0].Detail(), tc.want)
			}
		})
	}
}
