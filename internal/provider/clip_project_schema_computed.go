package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/provider/planmodifiers"
)

// projectComputedAttributes are the Project fields the service reports. So
// that an in-place visibility change plans only updated_at as "known after
// apply" (and keeps what depends on the project known at plan time):
//   - values fixed at creation always keep their state value;
//   - the values the pipeline moves keep it once the project is COMPLETE
//     (planmodifiers.UseStateWhenComplete), the stage after which they no longer change;
//   - updated_at changes with every update and is left unknown.
func projectComputedAttributes() map[string]schema.Attribute {
	fixed := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	whenComplete := planmodifiers.UseStateWhenComplete{}
	str := func(desc string, mods ...planmodifier.String) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true, PlanModifiers: mods}
	}
	moving := func(desc string) schema.StringAttribute {
		return str(desc, whenComplete)
	}
	strList := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: types.StringType,
			PlanModifiers: []planmodifier.List{whenComplete}}
	}
	integer := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{MarkdownDescription: desc, Computed: true, PlanModifiers: []planmodifier.Int64{whenComplete}}
	}
	return map[string]schema.Attribute{
		"id":                     str("Project identifier (same as `project_id`).", fixed...),
		"project_id":             str("Project identifier.", fixed...),
		"user_id":                str("Owner user identifier.", fixed...),
		"org_id":                 str("Organization identifier.", fixed...),
		"created_at":             str("Creation time (RFC 3339).", fixed...),
		"source_platform":        str("Where the video came from: `YOUTUBE`, `UPLOADED`, `YTDLP_LINK`, `GDRIVE`, `ZOOM` or `STREAM_YARD`.", fixed...),
		"source_id":              str("Identifier of the video on the source platform.", fixed...),
		"source_uri":             str("Address of the imported source, when the service reports one.", fixed...),
		"product_tier":           str("Product tier the project was processed under.", fixed...),
		"updated_at":             str("Last update time (RFC 3339)."),
		"stage":                  moving("Pipeline stage: `PENDING`, `QUEUED`, `IMPORT`, `CURATE`, `REFINE`, `RENDER`, `UPLOAD`, `COMPLETE` or `STALLED`."),
		"storage_status":         moving("Storage status of the project's files."),
		"storage_expire_at":      moving("When the project's files expire (30 days after creation unless saved)."),
		"cluster_job_id":         moving("Processing job identifier."),
		"cluster":                moving("Processing cluster."),
		"error":                  moving("Why the project stalled, when it did."),
		"worker_url":             moving("Worker processing the project, when reported."),
		"refund_status":          moving("Refund status of the project's credits, when reported."),
		"labels":                 strList("Labels of the project."),
		"permissions":            strList("What the API key may do with the project, e.g. `PROJECT_VIEW`, `PROJECT_EDIT`, `PROJECT_SHARE`."),
		"prompt_recommendations": strList("Prompts the service suggests for this video."),
		"storage_size":           integer("Bytes of storage used by the project."),
		"stall_count":            integer("How many times the project stalled, when reported."),
		"clip_count":             integer("Number of exportable clips of the project; 0 until it is `COMPLETE`."),
		"clips": schema.ListNestedAttribute{
			MarkdownDescription: "The project's exportable clips, in the service's order, with the fields of the `clips` of " +
				"`data.clipper_exportable_clips`: use `clips[0].id` as the `content_id` of `clipper_post_task`, " +
				"`clipper_publish_schedule` or `clipper_collection_content`. Empty until the project is `COMPLETE` (a create " +
				"with `wait_for_completion = false` records none; the first refresh after the project completes reads them). " +
				"Listed again by a refresh when the project changed since they were listed (`updated_at`, `visibility`) or a " +
				"download address expires within a day; kept as they are in the plan of an in-place " +
				"update (`visibility`, `wait_for_completion`, `timeouts`) of a `COMPLETE` project, so that what uses them " +
				"stays known and is not replaced.",
			Computed:      true,
			NestedObject:  schema.NestedAttributeObject{Attributes: exportableClipAttributes()},
			PlanModifiers: []planmodifier.List{whenComplete},
		},
	}
}
