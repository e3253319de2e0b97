package pipeline

import (
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// captionPosition comes from the brand template, and renderPref overrides it.
func TestCaptionStylePosition(t *testing.T) {
	t.Parallel()
	on := true
	for _, tc := range []struct {
		base, rp string
		want     string
	}{
		{"", "", ""},
		{"top", "", "top"},
		{"top", "middle", "middle"},
		{"", "bottom", "bottom"},
	} {
		st, ok := captionStyle(apitypes.RenderPref{EnableCaption: &on, CaptionPosition: tc.base}, apitypes.RenderPref{CaptionPosition: tc.rp})
		if !ok || st.Position != tc.want {
			t.Errorf("template %q, renderPref %q: position %q (captions %v), want %q", tc.base, tc.rp, st.Position, ok, tc.want)
		}
	}
}
