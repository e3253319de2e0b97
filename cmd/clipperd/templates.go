package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// templatesCreate stores a custom brand template of an organization and
// prints its templateId as the last word of its output. The hosted service
// creates templates in its web editor; a self-hosted server has none, so
// the operator records them here. Safe while the server runs.
func templatesCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("templates create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := installationFlags(fs)
	org := fs.String("org", "", "organization id that owns the template (required)")
	name := fs.String("name", "", "template name (required)")
	isDefault := fs.Bool("default", false, "make it the org's default template, used when a project names none")
	aspect := fs.String("aspect", "", "layoutAspectRatio the template applies: "+strings.Join(apitypes.AspectRatios, ", "))
	fit := fs.Bool("fit", false, "fit the picture on a blurred background instead of cropping it")
	watermark := fs.Bool("watermark", false, "add a watermark to the clips")
	layout := fs.String("layout", "", "layout switch the template turns on: "+strings.Join(layoutSwitchNames(), ", ")+" (see the service-behaviour guide's Layouts)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	*org, *name, *aspect = strings.TrimSpace(*org), strings.TrimSpace(*name), strings.ToLower(strings.TrimSpace(*aspect))
	if *org == "" || *name == "" {
		return fmt.Errorf("%w: templates create: --org and --name are required", errUsage)
	}
	if err := rules.Length(*name, rules.MaxName); err != nil {
		return fmt.Errorf("%w: templates create: --name %w", errUsage, err)
	}
	if *aspect != "" && !slices.Contains(apitypes.AspectRatios, *aspect) {
		return fmt.Errorf("%w: templates create: --aspect must be one of %s, not %q", errUsage, strings.Join(apitypes.AspectRatios, ", "), *aspect)
	}
	pref := apitypes.RenderPref{LayoutAspectRatio: *aspect}
	if *fit {
		pref.EnableFitLayout = fit
	}
	if *layout != "" {
		f := pref.LayoutSwitch(*layout)
		if f == nil || !slices.Contains(layoutSwitchNames(), *layout) {
			return fmt.Errorf("%w: templates create: --layout must be one of %s, not %q", errUsage, strings.Join(layoutSwitchNames(), ", "), *layout)
		}
		// The command makes templates of one layout; the API settles several by precedence.
		if *fit && *layout != "enableFitLayout" {
			return fmt.Errorf("%w: templates create: --fit and --layout %s pick different layouts: give one", errUsage, *layout)
		}
		on := true
		*f = &on
	}
	if *watermark {
		pref.EnableWatermark = watermark
	}
	tpl := apitypes.BrandTemplate{TemplateID: store.NewID("tpl_"), Name: *name, IsDefault: *isDefault, Preferences: &pref}

	st, err := state.open(ctx)
	if err != nil {
		return err
	}
	err = saveTemplate(ctx, st.Store, *org, tpl)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if err != nil {
		return fmt.Errorf("templates create: %w", err)
	}
	what := "brand template"
	if tpl.IsDefault {
		what = "default brand template"
	}
	_, err = fmt.Fprintf(stdout, "created %s %q for org %s: %s\n", what, tpl.Name, *org, tpl.TemplateID)
	return err
}

// layoutSwitchNames are the renderPref switches --layout takes.
func layoutSwitchNames() []string {
	out := make([]string, len(rules.LayoutSwitches))
	for i, s := range rules.LayoutSwitches {
		out[i] = s.Wire
	}
	return out
}

// templateStore is what saveTemplate reads and writes of the store.
type templateStore interface {
	BrandTemplates(ctx context.Context, orgID string) ([]apitypes.BrandTemplate, error)
	SaveBrandTemplate(ctx context.Context, orgID string, t apitypes.BrandTemplate) error
}

// saveTemplate stores tpl; a new default first stops the org's earlier
// default from being one, so the org keeps exactly one.
func saveTemplate(ctx context.Context, st templateStore, org string, tpl apitypes.BrandTemplate) error {
	if tpl.IsDefault {
		all, err := st.BrandTemplates(ctx, org)
		if err != nil {
			return err
		}
		for _, t := range all {
			if t.IsDefault && t.Type != "preset" {
				t.IsDefault = false
				if err := st.SaveBrandTemplate(ctx, org, t); err != nil {
					return err
				}
			}
		}
	}
	return st.SaveBrandTemplate(ctx, org, tpl)
}
