package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// DefaultPresetID is the template applied when neither the request nor the
// org names one.
const DefaultPresetID = "preset-fancy-Simple"

// presets gives each preset template its look; the ids are the spec's. Each sets one
// layout at most (the guide's template table lists them): Gameplay the game layout,
// Pod_P (podcasts, two people) split, Deep_Diver and Think_Media fit; the others leave
// the crop that follows the speaker.
func presets() []apitypes.BrandTemplate {
	t, f := true, false
	look := map[string]apitypes.RenderPref{
		"preset-fancy-Karaoke":     {EnableCaption: &t, EnableHighlight: &t, CaptionStyle: "karaoke", HighlightColor: &apitypes.HighlightColor{Primary: "#FFE600", Secondary: "#FFFFFF"}},
		"preset-fancy-Gameplay":    {EnableCaption: &t, EnableGameLayout: &t, CaptionStyle: "gameplay"},
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
	var pref []byte
	if t.Preferences != nil {
		var err error
		if pref, err = json.Marshal(t.Preferences); err != nil {
			return err
		}
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO brand_templates(id, org_id, name, is_default, type, preferences) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET name = excluded.name, is_default = excluded.is_default, type = excluded.type,
			preferences = excluded.preferences`, t.TemplateID, orgID, t.Name, boolInt(t.IsDefault), t.Type, nullString(string(pref)))
	if err != nil {
		return fmt.Errorf("save brand template: %w", err)
	}
	return nil
}

func scanBrandTemplate(row scanner) (apitypes.BrandTemplate, error) {
	var t apitypes.BrandTemplate
	var pref sql.NullString
	if err := row.Scan(&t.TemplateID, &t.Name, &t.IsDefault, &t.Type, &pref); err != nil {
		return t, err
	}
	if pref.Valid {
		t.Preferences = new(apitypes.RenderPref)
		if err := json.Unmarshal([]byte(pref.String), t.Preferences); err != nil {
			return t, fmt.Errorf("decode preferences of brand template %s: %w", t.TemplateID, err)
		}
	}
	return t, nil
}

// BrandTemplates lists the org's templates followed by the presets. Exactly
// one is marked default: the org's own default if it has one, else the
// Simple preset.
func (s *Store) BrandTemplates(ctx context.Context, orgID string) ([]apitypes.BrandTemplate, error) {
	out, err := queryAll(ctx, s.db, scanBrandTemplate, `SELECT id, name, is_default, type, preferences
		FROM brand_templates WHERE org_id = ? ORDER BY id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("list brand templates: %w", err)
	}
	orgDefault := false
	for i := range out {
		if out[i].IsDefault {
			// The first default wins.
			out[i].IsDefault = !orgDefault
			orgDefault = true
		}
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
