package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/provider/validators"
)

// renderToggles are the boolean render preferences, by snake_case name.
// Their wire names are the camelCase forms (see pref_codec.go).
var renderToggles = map[string]string{
	"remove_filler_words":      "Remove filler words (um, uh...) from clips (`quickstartConfig.enableRemoveFillerWords`).",
	"skip_reframe":             "Keep the original framing instead of reframing to the layout.",
	"enable_split_layout":      "Allow the split-screen layout.",
	"enable_fit_layout":        "Allow the fit layout (whole frame with padding).",
	"enable_fill_layout":       "Allow the fill layout (crop to fill the frame).",
	"enable_screen_layout":     "Allow the screen-recording layout.",
	"enable_three_layout":      "Allow the three-speaker layout.",
	"enable_four_layout":       "Allow the four-speaker layout.",
	"enable_auto_layout":       "Let the service choose the layout per scene.",
	"disable_fit_layout":       "Never use the fit layout.",
	"disable_fill_layout":      "Never use the fill layout.",
	"enable_crop":              "Crop to the layout's aspect ratio.",
	"enable_visual_hook":       "Add a visual hook at the start of clips.",
	"enable_caption":           "Burn captions into clips.",
	"enable_caption_animation": "Animate captions word by word.",
	"enable_highlight":         "Highlight keywords in captions.",
	"enable_emoji":             "Add emojis to captions.",
	"enable_uppercase":         "Write captions in uppercase.",
	"enable_auto_transition":   "Add transitions between scenes.",
	"enable_watermark":         "Add the account's watermark.",
	"enable_game_layout":       "Allow the gameplay layout.",
	"enable_broll":             "Insert B-roll footage.",
	"enable_screen_overlay":    "Show the screen overlay.",
	"disable_screen_overlay":   "Never show a screen overlay.",
	"enable_voice_enhancement": "Enhance the voice track.",
}

func renderAttribute() schema.SingleNestedAttribute {
	attrs := map[string]schema.Attribute{
		"layout_aspect_ratio": schema.StringAttribute{
			MarkdownDescription: "Aspect ratio of the rendered clips: `portrait`, `landscape` or `square`.",
			Optional:            true,
			Validators:          []validator.String{stringvalidator.OneOf(apitypes.AspectRatios...)},
		},
		"fit_layout_crop_ratio": schema.StringAttribute{
			MarkdownDescription: "Crop ratio of the fit layout, written `w:h` with positive numbers, e.g. `9:16` or `1.5:1`.",
			Optional:            true,
			Validators:          []validator.String{validators.Ratio()},
		},
		"caption_style":    optionalString("Caption style name."),
		"caption_position": optionalString("Caption position name."),
		"caption_animation": schema.SingleNestedAttribute{
			MarkdownDescription: "Caption animation (`captionAnimation`).",
			Optional:            true,
			Attributes: map[string]schema.Attribute{
				"name":            optionalString("Animation name."),
				"highlight_color": optionalColor("Color of the highlighted word."),
				"bg_color":        optionalString("Background color of the caption."),
			},
		},
		"emoji_style": schema.SingleNestedAttribute{
			MarkdownDescription: "Placement of emojis (`emojiStyle`).",
			Optional:            true,
			Attributes: map[string]schema.Attribute{
				"pos":     optionalString("Position name."),
				"scale_x": optionalFloat("Horizontal scale."),
				"scale_y": optionalFloat("Vertical scale."),
				"rect":    rectAttribute("Placement rectangle of emojis."),
			},
		},
		"highlight_color": schema.SingleNestedAttribute{
			MarkdownDescription: "Keyword highlight colors (`highlightColor`).",
			Optional:            true,
			Attributes: map[string]schema.Attribute{
				"primary":   optionalColor("Primary highlight color."),
				"secondary": optionalColor("Secondary highlight color."),
			},
		},
		"font":                   fontAttribute(),
		"screen_overlay":         optionalString("Screen overlay reference (`screenOverlay`)."),
		"screen_overlay_file_id": optionalString("Stored file id of the screen overlay (`screenOverlayFileId`)."),
		"screen_overlays":        screenOverlaysAttribute(),
		"selected_transitions": schema.ListAttribute{
			MarkdownDescription: "Transitions to use between scenes. An empty list is the same as none.",
			Optional:            true,
			ElementType:         types.StringType,
		},
	}
	for name, desc := range renderToggles {
		attrs[name] = schema.BoolAttribute{MarkdownDescription: desc, Optional: true}
	}
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Render preferences (`renderPref`): layout, captions, font and overlays of the clips.",
		Optional:            true,
		Attributes:          attrs,
	}
}

func fontAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Caption font (`font`).",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"id":              optionalString("Font id."),
			"type":            optionalString("Font type."),
			"name":            optionalString("Font name."),
			"path":            optionalString("Font file path."),
			"size":            optionalString("Size name."),
			"numerical_size":  checkedFloat("Size in points, above 0.", validators.FontSize()),
			"color":           optionalString("Text color."),
			"text_decoration": optionalString("Text decoration, e.g. `underline`."),
			"family":          optionalString("Font family."),
			"style": schema.ListAttribute{
				MarkdownDescription: "Styles, e.g. `bold`, `italic`. An empty list is the same as none.",
				Optional:            true,
				ElementType:         types.StringType,
			},
			"stroke": schema.SingleNestedAttribute{
				MarkdownDescription: "Text outline.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"enabled": optionalBool("Draw the outline."),
					"color":   optionalString("Outline color."),
					"width":   optionalFloat("Outline width."),
				},
			},
			"shadow": schema.SingleNestedAttribute{
				MarkdownDescription: "Text shadow.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"enabled":                  optionalBool("Draw the shadow."),
					"color":                    optionalString("Shadow color."),
					"x":                        optionalFloat("Horizontal offset."),
					"y":                        optionalFloat("Vertical offset."),
					"blur":                     optionalFloat("Blur radius."),
					"use_word_highlight_color": optionalBool("Use the word highlight color for the shadow."),
				},
			},
		},
	}
}

func screenOverlaysAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Overlays drawn over the clips (`screenOverlays`). An empty list is the same as none.",
		Optional:            true,
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"file_id": schema.StringAttribute{
					MarkdownDescription: "The image shown by the overlay: the id of a file in the account's storage, such as " +
						"an upload id from the upload flow (`object.id` of the stored file; the service fills in the " +
						"rest of the file's metadata).",
					Required:   true,
					Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"style": optionalString("Overlay style."),
				"rect":  rectAttribute("Placement rectangle of the overlay."),
			},
		},
	}
}

func rectAttribute(desc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: desc + " Values are percentages of the frame.",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"x_pct": checkedFloat("Left edge, percent of the frame width (0 to 100).", validators.Percent()),
			"y_pct": checkedFloat("Top edge, percent of the frame height (0 to 100).", validators.Percent()),
			"w_pct": checkedFloat("Width, percent of the frame width (0 to 100).", validators.Percent()),
			"h_pct": checkedFloat("Height, percent of the frame height (0 to 100).", validators.Percent()),
			"type":  optionalString("Rectangle type."),
		},
	}
}

// optionalString is a plain optional string; empty strings are refused
// because the service drops them, which would make the value drift.
func optionalString(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: desc,
		Optional:            true,
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

func optionalColor(desc string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: desc + " A hex color: `#RGB`, `#RRGGBB` or `#RRGGBBAA`.",
		Optional:            true,
		Validators:          []validator.String{validators.HexColor()},
	}
}

func optionalFloat(desc string) schema.Float64Attribute {
	return schema.Float64Attribute{MarkdownDescription: desc, Optional: true}
}

// checkedFloat is an optional number held to rule at plan time.
func checkedFloat(desc string, rule validator.Float64) schema.Float64Attribute {
	a := optionalFloat(desc)
	a.Validators = []validator.Float64{rule}
	return a
}

func optionalBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{MarkdownDescription: desc, Optional: true}
}
