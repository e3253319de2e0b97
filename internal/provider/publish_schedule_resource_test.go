package provider

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A schedule is replaced by a change, except in the first plan after an
// import and when publish_at is the same instant written another way.
func TestReplaceSchedule(t *testing.T) {
	r := NewPublishScheduleResource()
	recorded := stateOf(t, r, &publishScheduleModel{postModel: postModel{ID: types.StringValue("sch_1"), ContentID: types.StringValue("prj_1.c01")}})
	imported := stateOf(t, r, &publishScheduleModel{postModel: postModel{ID: types.StringValue("sch_1")}})
	plain, publishAt := replacePost(nil), replacePost(samePublishTime)
	str := types.StringValue
	cases := []struct {
		name, attr     string
		state          tfsdk.State
		m              planmodifier.String
		prior, planned types.String
		want           bool
	}{
		{"a changed title", "title", recorded, plain, str("Launch"), str("Launch day"), true},
		{"the first plan after an import", "title", imported, plain, types.StringNull(), str("Launch"), false},
		{"an imported schedule's time", "publish_at", imported, publishAt, types.StringNull(), str("2030-01-02T15:04:05Z"), false},
		{"the same instant at another offset", "publish_at", recorded, publishAt, str("2030-01-02T16:04:05+01:00"), str("2030-01-02T15:04:05Z"), false},
		{"another instant", "publish_at", recorded, publishAt, str("2030-01-02T16:04:05+01:00"), str("2030-01-02T16:04:05Z"), true},
		{"an unknown time", "publish_at", recorded, publishAt, str("2030-01-02T15:04:05Z"), types.StringUnknown(), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := replaceDecision(t, tc.state, tc.m, tc.attr, tc.prior, tc.planned); got != tc.want {
				t.Errorf("RequiresReplace = %t, want %t", got, tc.want)
			}
		})
	}
}

// publish_at must be in the future only for a schedule about to be made.
func TestPublishScheduleModifyPlan(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)
	r := &PublishScheduleResource{now: func() time.Time { return now }}
	model := func(at types.String) tfsdk.State {
		return stateOf(t, r, &publishScheduleModel{postModel: postModel{ID: types.StringValue("sch_1"),
			ContentID: types.StringValue("prj_1.c01"), PostAccountID: types.StringValue("pa_1"), Title: types.StringValue("Launch")},
			PublishAt: at})
	}
	sch := model(types.StringNull()).Schema
	none := tfsdk.State{Schema: sch, Raw: tftypes.NewValue(sch.Type().TerraformType(ctx), nil)}
	cases := []struct {
		name        string
		prior, plan tfsdk.State
		want        string
	}{
		{"a create in the future", none, model(types.StringValue("2030-01-02T16:04:06+01:00")), ""},
		{"a create in the past", none, model(types.StringValue("2030-01-02T16:04:05+01:00")),
			`publish_at: must be in the future, not 2030-01-02T16:04:05\+01:00 \(now is 2030-01-02T15:04:05Z\)`},
		{"a create at an unknown time", none, model(types.StringUnknown()), ""},
		{"a schedule whose time has passed", model(types.StringValue("2030-01-01T00:00:00Z")), model(types.StringValue("2030-01-01T00:00:00Z")), ""},
		{"a destroy", model(types.StringValue("2030-01-01T00:00:00Z")), none, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := resource.ModifyPlanRequest{State: tc.prior, Plan: tfsdk.Plan(tc.plan), Config: tfsdk.Config(tc.plan)}
			resp := &resource.ModifyPlanResponse{Plan: req.Plan}
			r.ModifyPlan(ctx, req, resp)
			checkDiags(t, resp.Diagnostics, tc.want)
		})
	}
}
