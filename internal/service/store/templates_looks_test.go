package store

import (
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
)

// Every preset template names a caption style clipperd draws (the guide's table).
func TestPresetCaptionLooks(t *testing.T) {
	t.Parallel()
	for _, p := range presets() {
		look, known := media.CaptionLook(p.Preferences.CaptionStyle)
		if !known {
			t.Errorf("preset %s: captionStyle %q is no known look", p.TemplateID, p.Preferences.CaptionStyle)
		}
		t.Logf("%s: %s -> %s", p.TemplateID, p.Preferences.CaptionStyle, look)
	}
}
