package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// projectComputedAttributes are the Project fields the service reports.
// Values fixed at creation keep their state value in plans (UseStateForUnknown;
// for model, once reported) so a visibility change does not show them as
// "known after apply"; the others may move as the pipeline runs and are left
// unknown on update.
func projectComputedAttributes() map[string]schema.Attribute {
	fixed := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	str := func(desc string, mods ...planmodifier.String) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true, PlanModifiers: mods}
	}
	strList := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: types.StringType}
	}
	return map[string]schema.Attribute{
		"id":                str("Project identifier (same as `project_id`).", fixed...),
		"project_id":        str("Project identifier.", fixed...),
		"user_id":           str("Owner user identifier.", fixed...),
		"org_id":            str("Organization identifier.", fixed...),
		"created_at":        str("Creation time (RFC 3339).", fixed...),
		"source_platform":   str("Where the video came from: `YOUTUBE`, `UPLOADED`, `YTDLP_LINK`, `GDRIVE`, `ZOOM` or `STREAM_YARD`.", fixed...),
		"source_id":         str("Identifier of the video on the source platform."),
		"stage":             str("Pipeline stage: `PENDING`, `QUEUED`, `IMPORT`, `CURATE`, `REFINE`, `RENDER`, `UPLOAD`, `COMPLETE` or `STALLED`."),
		"product_tier":      str("Product tier the project was processed under."),
		"storage_status":    str("Storage status of the project's files."),
		"storage_expire_at": str("When the project's files expire (30 days after creation unless saved)."),
		"updated_at":        str("Last update time (RFC 3339)."),
		"cluster_job_id":    str("Processing job identifier."),
		"cluster":           str("Processing cluster."),
		"source_uri":        str("Address of the imported source, when the service reports one."),
		"model": str("Curation model the project runs with: `ClipBasic` or `ClipAnything`.",
			stringplanmodifier.UseNonNullStateForUnknown()),
		"error":                  str("Why the project stalled, when it did."),
		"worker_url":             str("Worker processing the project, when reported."),
		"refund_status":          str("Refund status of the project's credits, when reported."),
		"labels":                 strList("Labels of the project."),
		"permissions":            strList("What the API key may do with the project, e.g. `PROJECT_VIEW`, `PROJECT_EDIT`, `PROJECT_SHARE`."),
		"prompt_recommendations": strList("Prompts the service suggests for this video."),
		"is_deleted":             schema.BoolAttribute{MarkdownDescription: "Whether the project was deleted.", Computed: true},
		"is_purged":              schema.BoolAttribute{MarkdownDescription: "Whether the project's files were purged.", Computed: true},
		"storage_size":           schema.Int64Attribute{MarkdownDescription: "Bytes of storage used by the project.", Computed: true},
		"stall_count":            schema.Int64Attribute{MarkdownDescription: "How many times the project stalled, when reported.", Computed: true},
	}
}
