package rules

import (
	"strings"
	"testing"
)

func TestPercent(t *testing.T) {
	for v, ok := range map[float64]bool{0: true, 12.5: true, 100: true, -0.1: false, 100.5: false, 250: false} {
		err := Percent(v)
		if (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), PercentRule)) {
			t.Errorf("Percent(%v) = %v, want ok=%t", v, err, ok)
		}
	}
}

func TestRect(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	if err := Rect(f(5), f(5), f(20), nil, APINames); err != nil {
		t.Errorf("a rectangle on the frame: %v", err)
	}
	for _, tc := range []struct {
		x, y, w, h *float64
		want       string
	}{
		{f(250), nil, nil, nil, "xPct: " + PercentRule + ", not 250"},
		{nil, f(-1), nil, nil, "yPct: " + PercentRule + ", not -1"},
		{f(0), f(0), f(101), nil, "wPct: "},
		{nil, nil, nil, f(300), "hPct: "},
	} {
		err := Rect(tc.x, tc.y, tc.w, tc.h, APINames)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Rect = %v, want it to start with %q", err, tc.want)
		}
	}
	if err := Rect(f(250), nil, nil, nil, AttributeNames); err == nil || !strings.HasPrefix(err.Error(), "x_pct: ") {
		t.Errorf("the provider's names: %v", err)
	}
}

func TestFontSize(t *testing.T) {
	for v, ok := range map[float64]bool{48: true, 0.5: true, 0: false, -4: false} {
		err := FontSize(v)
		if (err == nil) != ok || (err != nil && !strings.Contains(err.Error(), FontSizeRule)) {
			t.Errorf("FontSize(%v) = %v, want ok=%t", v, err, ok)
		}
	}
}
