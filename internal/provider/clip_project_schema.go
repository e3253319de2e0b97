package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/planmodifiers"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// sourceLangPattern accepts `auto` and language codes such as en, pt-BR or zh-Hans.
var sourceLangPattern = regexp.MustCompile(`^(auto|[a-z]{2,3}(-[A-Za-z0-9]{2,8})*)$`)

// clipProjectSchema is the schema of clipper_clip_project. Every argument but
// visibility (and the provider-side settings wait_for_completion and timeouts)
// replaces the project when it changes: the service cannot edit a project.
func clipProjectSchema(ctx context.Context) schema.Schema {
	attrs := map[string]schema.Attribute{
		"video_url": schema.StringAttribute{
			MarkdownDescription: "Public address of the source video (YouTube, Vimeo, Google Drive, a public MP4 link...) or " +
				"an upload id from an earlier upload. Exactly one of `video_url` and `source_file` is required. Import records " +
				"an uploaded project's upload id here; replacing it with `source_file` does not replace the project.",
			Optional:      true,
			Validators:    []validator.String{validators.VideoURL()},
			PlanModifiers: []planmodifier.String{planmodifiers.VideoURLRequiresReplace()},
		},
		"source_file": schema.StringAttribute{
			MarkdownDescription: "Path of a local video file, uploaded through the service's upload flow when the project " +
				"is created. Exactly one of `video_url` and `source_file` is required. Not read back from the service. " +
				"The file is read when the project is created, never at validate or plan time, so it may be produced " +
				"during the same apply. A different path replaces the project unless `source_hash` is set: then only " +
				"a different hash does.",
			Optional:      true,
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: []planmodifier.String{planmodifiers.SourceFileRequiresReplace()},
		},
		"source_hash": schema.StringAttribute{
			MarkdownDescription: "Any value that changes when the content of `source_file` changes, typically " +
				"`filesha256(var.source_file)`. A change uploads the file again in a new project. Not read back from the service.",
			Optional: true,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1),
				stringvalidator.AlsoRequires(path.MatchRoot("source_file"))},
			PlanModifiers: []planmodifier.String{planmodifiers.RequiresReplaceUnlessImported()},
		},
		"title": schema.StringAttribute{
			MarkdownDescription: "Custom project title (`uploadedVideoAttr.title`). Setting a different title replaces the " +
				"project; leaving it out keeps the title the project has (an imported project's, which the service may " +
				"have chosen), and replaces nothing.",
			Optional:      true,
			Computed:      true,
			Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: []planmodifier.String{planmodifiers.NullIsServiceChoice()},
		},
		"brand_template_id": schema.StringAttribute{
			MarkdownDescription: "Brand template applied when rendering, e.g. `preset-fancy-Karaoke` (see the " +
				"`clipper_brand_templates` data source). Without it the account's default template applies, and this " +
				"attribute reports the template the service chose. Setting a different template replaces the project.",
			Optional:   true,
			Computed:   true,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			PlanModifiers: []planmodifier.String{
				stringplanmodifier.UseStateForUnknown(),
				stringplanmodifier.RequiresReplaceIfConfigured(),
			},
		},
		"source_lang": schema.StringAttribute{
			MarkdownDescription: "Language code of the video (`importPref.sourceLang`), e.g. `en` or `pt-BR`; `auto` (the " +
				"service's default) detects it. Setting it is recommended for non-English videos. Leaving it out and `auto` " +
				"are the same project: neither replaces the other.",
			Optional: true,
			Computed: true,
			Validators: []validator.String{stringvalidator.RegexMatches(sourceLangPattern,
				"must be auto or a language code such as en, es or pt-BR")},
			PlanModifiers: []planmodifier.String{planmodifiers.NullIsDefault(apitypes.SourceLangAuto)},
		},
		"visibility": schema.StringAttribute{
			MarkdownDescription: "Who can see the project: `DEFAULT`, `PUBLIC` or `PUBLIC_VIEW`. The only argument " +
				"changed in place. Defaults to `DEFAULT`.",
			Optional:   true,
			Computed:   true,
			Default:    stringdefault.StaticString(apitypes.VisibilityDefault),
			Validators: []validator.String{stringvalidator.OneOf(apitypes.Visibilities...)},
		},
		"curation":           prefsArgument(curationAttribute(), samePrefs{empty: emptyCuration(), wire: curationWire}),
		"render":             prefsArgument(renderAttribute(), samePrefs{empty: emptyRender(), wire: renderWire}),
		"conclusion_actions": conclusionActionsAttribute(),
		"wait_for_completion": schema.BoolAttribute{
			MarkdownDescription: "Wait until the project reaches `COMPLETE` (or `STALLED`) when it is created. Defaults to `true`. " +
				"With `false` the resource is created as soon as the service accepts the project.",
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(true),
		},
		"timeouts": timeoutsAttribute(ctx),
	}
	for name, a := range projectComputedAttributes() {
		attrs[name] = a
	}
	return schema.Schema{
		Version: clipProjectSchemaVersion,
		MarkdownDescription: "A clipping project: the service imports a long-form video, curates highlights and renders " +
			"them as short clips. Only `visibility` can change in place; any other change creates a new project. " +
			"The service has no delete endpoint, so destroying only forgets the project (it expires at `storage_expire_at`).",
		Attributes: attrs,
	}
}

func curationAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Curation preferences (`curationPref`): how highlights are chosen.",
		Optional:            true,
		Validators:          []validator.Object{validators.CurationModel()},
		Attributes: map[string]schema.Attribute{
			"model": schema.StringAttribute{
				MarkdownDescription: "`ClipBasic` (talking-head videos, the default) or `ClipAnything` (any video type).",
				Optional:            true,
				Computed:            true,
				Default:             stringdefault.StaticString(apitypes.ModelClipBasic),
				Validators:          []validator.String{stringvalidator.OneOf(apitypes.Models...)},
			},
			"range": schema.SingleNestedAttribute{
				MarkdownDescription: "Part of the video to clip, in seconds. Omit it to clip the whole video.",
				Optional:            true,
				Validators:          []validator.Object{validators.CurationRange()},
				Attributes: map[string]schema.Attribute{
					"start_sec": schema.Float64Attribute{
						MarkdownDescription: "Start of the range in seconds; less than `end_sec`.",
						Required:            true,
					},
					"end_sec": schema.Float64Attribute{
						MarkdownDescription: "End of the range in seconds.",
						Required:            true,
					},
				},
			},
			"clip_durations": schema.ListAttribute{
				MarkdownDescription: "Wanted clip lengths as `[min, max]` pairs in seconds, `0 <= min < max`, e.g. `[[15, 30], [30, 60]]`. " +
					"An empty list is the same as none: the service picks the lengths.",
				Optional:    true,
				ElementType: types.ListType{ElemType: types.Float64Type},
				Validators:  []validator.List{validators.ClipDurations()},
			},
			"topic_keywords": schema.ListAttribute{
				MarkdownDescription: "Topics to favour. Applies to the `ClipBasic` model only. An empty list is the same as none.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"custom_prompt": schema.StringAttribute{
				MarkdownDescription: "Free-text description of the moments to find. Applies to the `ClipAnything` model only.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"genre": schema.StringAttribute{
				MarkdownDescription: "Genre of the video: `Auto` or a free string such as `Podcast`, `Q&A` or `Gaming`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"skip_curate": schema.BoolAttribute{
				MarkdownDescription: "Bypass clipping and process the original video as one clip.",
				Optional:            true,
			},
			"force_strategy": schema.StringAttribute{
				MarkdownDescription: "Advanced: pin curation to an explicit strategy instead of automatic selection.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
	}
}

// prefsArgument makes a preferences object (curation, render) an argument of
// the resource: computed, so that a null configuration can plan the
// defaults-only object, and planned by samePrefs, which replaces the project
// only when what it sends changes. (Not part of curationAttribute and
// renderAttribute, whose types the codec takes before samePrefs can exist.)
func prefsArgument(a schema.SingleNestedAttribute, plan samePrefs) schema.SingleNestedAttribute {
	a.Computed = true
	a.PlanModifiers = []planmodifier.Object{plan}
	a.MarkdownDescription += " Omitting it and writing only defaults (`{}`) are the same project: neither replaces the other."
	return a
}

func conclusionActionsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: fmt.Sprintf("Actions run when the project concludes (`conclusionActions`): a signed webhook or "+
			"an email; at most %d. An empty list is the same as none: changing one into the other changes nothing on "+
			"the service and replaces nothing.", rules.MaxConclusionActions),
		Optional:      true,
		Validators:    []validator.List{listvalidator.SizeAtMost(rules.MaxConclusionActions)},
		PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(unlessBothEmpty, unlessBothEmptyDescription, unlessBothEmptyDescription)},
		NestedObject: schema.NestedAttributeObject{
			Validators: []validator.Object{validators.ConclusionAction()},
			Attributes: map[string]schema.Attribute{
				"type": schema.StringAttribute{
					MarkdownDescription: "`WEBHOOK` (POST a signed JSON payload to `url`) or `EMAIL` (send a message to `email`).",
					Required:            true,
					Validators:          []validator.String{stringvalidator.OneOf(apitypes.ActionWebhook, apitypes.ActionEmail)},
				},
				"url": schema.StringAttribute{
					MarkdownDescription: "Webhook address (http or https); required for `WEBHOOK`.",
					Optional:            true,
				},
				"email": schema.StringAttribute{
					MarkdownDescription: "Recipient address; required for `EMAIL`.",
					Optional:            true,
				},
				"notify_failure": schema.BoolAttribute{
					MarkdownDescription: "Also run the action when the project stalls. Defaults to `false`.",
					Optional:            true,
					Computed:            true,
					Default:             booldefault.StaticBool(false),
				},
			},
		},
	}
}

// timeoutsAttribute is the timeouts argument with a description for the docs.
func timeoutsAttribute(ctx context.Context) schema.Attribute {
	a := timeouts.Attributes(ctx, timeouts.Opts{Create: true, Read: true, Update: true, Delete: true})
	nested, ok := a.(schema.SingleNestedAttribute)
	if !ok {
		return a
	}
	nested.MarkdownDescription = "Operation timeouts as duration strings such as `30s` or `2h45m`. `create` (default `60m`) " +
		"bounds the upload and the wait for completion; `read` and `update` default to `5m`; `delete` only forgets the project."
	return checkedTimeouts(nested)
}

const unlessBothEmptyDescription = "Changing it replaces the project, except from an empty list to none or back."

// unlessBothEmpty replaces the project when the list changes, except when it
// only changes between an empty list and none: both send no actions.
func unlessBothEmpty(_ context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
	empty := func(v types.List) bool { return v.IsNull() || (!v.IsUnknown() && len(v.Elements()) == 0) }
	resp.RequiresReplace = !empty(req.StateValue) || !empty(req.PlanValue)
}
