package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// An exportable clip as Terraform shows it: the items of the `clips` of
// data.clipper_exportable_clips and of clipper_clip_project. Both schemas are
// built from exportableClipAttributes and filled by exportableClipFromAPI, so
// their item fields cannot drift apart.

// exportableClipAttributes are the fields of one clip, computed only.
func exportableClipAttributes() map[string]schema.Attribute {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	return map[string]schema.Attribute{
		"id":              str("Composite clip id `{projectId}.{curationId}`, the content id of collections."),
		"project_id":      str("Project of the clip."),
		"curation_id":     str("Bare clip id, used by the social posting endpoints."),
		"run_id":          str("Processing run that produced the clip."),
		"org_id":          str("Organization identifier."),
		"user_id":         str("Owner user identifier."),
		"uri_for_preview": str("Download address of the preview rendition."),
		"uri_for_export":  str("Download address of the rendered clip."),
		"storage_used":    schema.Int64Attribute{MarkdownDescription: "Bytes of storage the clip uses.", Computed: true},
		"duration_ms":     schema.Int64Attribute{MarkdownDescription: "Length of the clip in milliseconds.", Computed: true},
		"time_ranges": schema.ListAttribute{
			MarkdownDescription: "Parts of the source video in the clip, as `[start_ms, end_ms]` pairs.",
			Computed:            true,
			ElementType:         types.ListType{ElemType: types.Int64Type},
		},
		"keywords": schema.ListAttribute{MarkdownDescription: "Keywords of the clip: with a transcript, up to 5 key phrases " +
			"of its words, most frequent first; without, the project's topic keywords.", Computed: true, ElementType: types.StringType},
		"prompt_name": str("Prompt that selected the clip."),
		"title": str("Generated title: with a transcript, the clip's first sentence-like run of words or its top " +
			"key phrase; without, the project's title and the clip's place in it."),
		"description": str("Generated description: with a transcript, the clip's words cut after a whole word at " +
			"280 characters; without, where the clip is in the source and how it was chosen."),
		"hashtags": str("Generated hashtags as one string: the keywords and the genre as `#Tags`."),
		"text": str("Transcript of the clip: the words recognised within it, in spoken order; empty when the " +
			"service has no transcript (no speech, no recogniser)."),
		"genre":        str("Genre of the clip."),
		"subgenre":     str("Subgenre of the clip."),
		"created_at":   str("Creation time."),
		"updated_at":   str("Last update time."),
		"product_tier": str("Product tier the clip was rendered under."),
		"render_pref": computedRenderAttribute("Render preferences the clip was rendered with (`renderPref`), " +
			"with the fields of the `render` argument of `clipper_clip_project`."),
	}
}

// exportableClipType is the object type of one clip.
var exportableClipType = schema.NestedAttributeObject{Attributes: exportableClipAttributes()}.Type()

// exportableClipsList is the `clips` value of clips listed by the service,
// in the service's order.
func exportableClipsList(ctx context.Context, clips []apitypes.ExportableClip) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	items := make([]exportableClipModel, 0, len(clips))
	for _, c := range clips {
		m, err := exportableClipFromAPI(c)
		if err != nil {
			diags.AddError("Unexpected clip from the service", err.Error())
			return types.ListNull(exportableClipType), diags
		}
		items = append(items, m)
	}
	return types.ListValueFrom(ctx, exportableClipType, items)
}

type exportableClipModel struct {
	ID            types.String `tfsdk:"id"`
	ProjectID     types.String `tfsdk:"project_id"`
	CurationID    types.String `tfsdk:"curation_id"`
	RunID         types.String `tfsdk:"run_id"`
	OrgID         types.String `tfsdk:"org_id"`
	UserID        types.String `tfsdk:"user_id"`
	URIForPreview types.String `tfsdk:"uri_for_preview"`
	URIForExport  types.String `tfsdk:"uri_for_export"`
	StorageUsed   types.Int64  `tfsdk:"storage_used"`
	DurationMs    types.Int64  `tfsdk:"duration_ms"`
	TimeRanges    types.List   `tfsdk:"time_ranges"`
	Keywords      types.List   `tfsdk:"keywords"`
	PromptName    types.String `tfsdk:"prompt_name"`
	Title         types.String `tfsdk:"title"`
	Description   types.String `tfsdk:"description"`
	Hashtags      types.String `tfsdk:"hashtags"`
	Text          types.String `tfsdk:"text"`
	Genre         types.String `tfsdk:"genre"`
	Subgenre      types.String `tfsdk:"subgenre"`
	CreatedAt     types.String `tfsdk:"created_at"`
	UpdatedAt     types.String `tfsdk:"updated_at"`
	ProductTier   types.String `tfsdk:"product_tier"`
	RenderPref    types.Object `tfsdk:"render_pref"`
}

func exportableClipFromAPI(c apitypes.ExportableClip) (exportableClipModel, error) {
	pairType := types.ListType{ElemType: types.Int64Type}
	ranges := make([]attr.Value, 0, len(c.TimeRanges))
	for _, r := range c.TimeRanges {
		ranges = append(ranges, types.ListValueMust(types.Int64Type,
			[]attr.Value{types.Int64Value(r[0]), types.Int64Value(r[1])}))
	}
	render, err := renderFromAPI(c.RenderPref)
	if err != nil {
		return exportableClipModel{}, fmt.Errorf("clip %s: renderPref: %w", c.ID, err)
	}
	return exportableClipModel{
		ID:            types.StringValue(c.ID),
		ProjectID:     types.StringValue(c.ProjectID),
		CurationID:    types.StringValue(c.CurationID),
		RunID:         types.StringValue(c.RunID),
		OrgID:         types.StringValue(c.OrgID),
		UserID:        types.StringValue(c.UserID),
		URIForPreview: types.StringValue(c.URIForPreview),
		URIForExport:  types.StringValue(c.URIForExport),
		StorageUsed:   types.Int64Value(c.StorageUsed),
		DurationMs:    types.Int64Value(c.DurationMs),
		TimeRanges:    types.ListValueMust(pairType, ranges),
		Keywords:      stringList(c.Keywords),
		PromptName:    types.StringValue(c.PromptName),
		Title:         types.StringValue(c.Title),
		Description:   types.StringValue(c.Description),
		Hashtags:      types.StringValue(c.Hashtags),
		Text:          types.StringValue(c.Text),
		Genre:         types.StringValue(c.Genre),
		Subgenre:      types.StringValue(c.Subgenre),
		CreatedAt:     types.StringValue(c.CreatedAt),
		UpdatedAt:     types.StringValue(c.UpdatedAt),
		ProductTier:   types.StringValue(c.ProductTier),
		RenderPref:    render,
	}, nil
}
