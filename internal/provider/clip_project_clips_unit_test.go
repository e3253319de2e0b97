package provider

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestValidFor(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	in := func(d time.Duration) string { return now.Add(d).Format("20060102T150405Z") }
	cases := []struct {
		addr string
		want bool
	}{
		{"https://clips.example/media/p1/c1.mp4", true}, // nothing signed: does not expire
		{"https://clips.example/media/p1/c1.mp4?expires=" + itoa(now.Add(48*time.Hour).Unix()) + "&sig=x", true},
		{"https://clips.example/media/p1/c1.mp4?expires=" + itoa(now.Add(23*time.Hour).Unix()) + "&sig=x", false},
		{"https://cdn.example/c1.mp4?Expires=" + itoa(now.Add(72*time.Hour).Unix()) + "&Signature=x", true},
		{"https://b.s3.amazonaws.com/c1.mp4?X-Amz-Date=" + in(-time.Hour) + "&X-Amz-Expires=604800&X-Amz-Signature=x", true},
		{"https://b.s3.amazonaws.com/c1.mp4?X-Amz-Date=" + in(-6*24*time.Hour-time.Hour) + "&X-Amz-Expires=604800", false},
		{"https://storage.googleapis.com/b/c1.mp4?X-Goog-Date=" + in(0) + "&X-Goog-Expires=172800", true},
		{"https://clips.example/c1.mp4?token=abc", false}, // signed, expiry unreadable: list again
		{"https://clips.example/c1.mp4?expires=soon", false},
		{"", true},
	}
	for _, c := range cases {
		if got := validFor(c.addr, now, clipAddressMinValidity); got != c.want {
			t.Errorf("validFor(%q) = %t, want %t", c.addr, got, c.want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// memPrivate is a resource's private state for tests of what is recorded
// there.
type memPrivate map[string][]byte

func (m memPrivate) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return m[key], nil
}

func (m memPrivate) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(m, key)
	} else {
		m[key] = value
	}
	return nil
}

// A refresh keeps the clips listed for the project as it still is, with
// addresses valid for a day more; anything else lists them again.
func TestClipsStillCurrent(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	addr := func(d time.Duration) string {
		return "https://clips.example/media/p1/c1.mp4?expires=" + itoa(now.Add(d).Unix()) + "&sig=x"
	}
	project := &apitypes.Project{ID: "p1", Stage: apitypes.StageComplete, UpdatedAt: "2026-11-28T10:00:00Z", Visibility: "DEFAULT"}
	model := func(expiresIn time.Duration) *clipProjectModel {
		m := &clipProjectModel{}
		clips, diags := exportableClipsList(ctx, []apitypes.ExportableClip{{ID: "p1.c1", ProjectID: "p1",
			URIForExport: addr(expiresIn), URIForPreview: addr(expiresIn)}})
		if diags.HasError() {
			t.Fatal(diags)
		}
		m.Clips, m.ClipCount = clips, types.Int64Value(1)
		return m
	}
	listed := memPrivate{}
	if diags := recordClipsListed(ctx, listed, project); diags.HasError() {
		t.Fatal(diags)
	}
	if !clipsStillCurrent(ctx, listed, model(6*24*time.Hour), project, now) {
		t.Error("clips of an unchanged project with addresses valid for six days were listed again")
	}
	changed := *project
	changed.UpdatedAt = "2026-11-29T11:00:00Z"
	public := *project
	public.Visibility = "PUBLIC"
	stalled := *project
	stalled.Stage = apitypes.StageStalled
	for name, c := range map[string]struct {
		private memPrivate
		m       *clipProjectModel
		p       *apitypes.Project
	}{
		"project updated":           {listed, model(6 * 24 * time.Hour), &changed},
		"visibility changed":        {listed, model(6 * 24 * time.Hour), &public},
		"not COMPLETE":              {listed, model(6 * 24 * time.Hour), &stalled},
		"address expires in 20h":    {listed, model(20 * time.Hour), project},
		"nothing recorded":          {memPrivate{}, model(6 * 24 * time.Hour), project},
		"no clips in state":         {listed, &clipProjectModel{Clips: types.ListNull(exportableClipType)}, project},
		"clip_count not the listed": {listed, func() *clipProjectModel { m := model(6 * 24 * time.Hour); m.ClipCount = types.Int64Value(2); return m }(), project},
	} {
		if clipsStillCurrent(ctx, c.private, c.m, c.p, now) {
			t.Errorf("%s: the clips were kept", name)
		}
	}
	// A project no longer COMPLETE forgets the record.
	if diags := recordClipsListed(ctx, listed, &stalled); diags.HasError() || len(listed) != 0 {
		t.Errorf("a listing for a project not COMPLETE left %v", listed)
	}
}
