package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// DefaultPresetID is the template applied when neither the request nor the
// org names one.
const DefaultPresetID = "preset-fancy-Simple"

// presets gives each preset template its look; the ids are the spec's.
func presets() []apitypes.BrandTemplate {
	t, f := true, false
	look := map[string]apitypes.RenderPref{
		"preset-fancy-Karaoke":     {EnableCaption: &t, EnableHighlight: &t, CaptionStyle: "karaoke", HighlightColor: &apitypes.HighlightColor{Primary: "#FFE600", Secondary: "#FFFFFF"}},
		"preset-fancy-Gameplay":    {EnableCaption: &t, EnableGameLayout: &t, EnableSplitLayout: &t, CaptionStyle: "gameplay"},
		"preset-fancy-Beasty":      {EnableCaption: &t, EnableUppercase: &t, EnableEmoji: &t, CaptionStyle: "beasty"},
		"preset-fancy-Deep_Diver":  {EnableCaption: &t, EnableFitLayout: &t, CaptionStyle: "deep-diver"},
		"preset-fancy-Youshaei":    {EnableCaption: &t, EnableHighlight: &t, CaptionStyle: "youshaei"},
		"preset-fancy-Pod_P":       {EnableCaption: &t, EnableSplitLayout: &t, CaptionStyle: "pod-p"},
		"preset-fancy-Mozi":        {EnableCaption: &t, EnableUppercase: &t, CaptionStyle: "mozi"},
		"preset-fancy-Popline":     {EnableCaption: &t, EnableCaptionAnimation: &t, CaptionStyle: "popline"},
		"preset-fancy-Simple":      {EnableCaption: &t, EnableHighlight: &f, CaptionStyle: "simple"},
		"preset-fancy-Think_Media": {EnableCaption: &t, EnableFitLayout: &t, CaptionStyle: "think-media"},
	}
	out := make([]apitypes.BrandTemplate, 0, len(apitypes.PresetTemplateIDs))
	for _, id := range apitypes.PresetTemplateIDs {
		pref := look[id]
		out = append(out, apitypes.BrandTemplate{
			TemplateID:  id,
			Name:        strings.ReplaceAll(strings.TrimPrefix(id, "preset-fancy-"), "_", " "),
			Type:        "preset",
			Preferences: &pref,
		})
	}
	return out
}

// SaveBrandTemplate stores an org's own template.
func (s *Store) SaveBrandTemplate(ctx context.Context, orgID string, t apitypes.BrandTemplate) error {
	if t.TemplateID == "" {
		t.TemplateID = NewID("tpl_")
	}
	t.Type = "custom"
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO brand_templates(id, org_id, data) VALUES (?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET data = excluded.data`, t.TemplateID, orgID, string(data))
	if err != nil {
		return fmt.Errorf("save brand template: %w", err)
	}
	return nil
}

// BrandTemplates lists the org's templates followed by the presets. Exactly
// one is marked default: the org's own default if it has one, else the
// Simple preset.
func (s *Store) BrandTemplates(ctx context.Context, orgID string) ([]apitypes.BrandTemplate, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT data FROM brand_templates WHERE org_id = ? ORDER BY id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list brand templates: %w", err)
	}
	defer rows.Close()
	var out []apitypes.BrandTemplate
	orgDefault := false
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		var t apitypes.BrandTemplate
		if err := json.Unmarshal([]byte(data), &t); err != nil {
			return nil, err
		}
		if t.IsDefault {
			if orgDefault {
				t.IsDefault = false
			}
			orgDefault = true
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, p := range presets() {
		p.IsDefault = !orgDefault && p.TemplateID == DefaultPresetID
		out = append(out, p)
	}
	return out, nil
}

// BrandTemplate finds one template the org may use; ErrNotFound otherwise.
// An empty id yields the org's default.
func (s *Store) BrandTemplate(ctx context.Context, orgID, id string) (*apitypes.BrandTemplate, error) {
	all, err := s.BrandTemplates(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if (id == "" && all[i].IsDefault) || (id != "" && all[i].TemplateID == id) {
			return &all[i], nil
		}
	}
	return nil, ErrNotFound
}
