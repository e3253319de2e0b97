package rules

import (
	"strings"
	"testing"
)

func TestTransition(t *testing.T) {
	for _, ok := range []string{"fade", " WipeLeft ", "circleopen"} {
		if err := Transition(ok); err != nil {
			t.Errorf("Transition(%q) = %v, want nil", ok, err)
		}
	}
	err := Transition("sparkle")
	if err == nil || !strings.Contains(err.Error(), `not "sparkle"`) || !strings.Contains(err.Error(), "dissolve") {
		t.Errorf("Transition(sparkle) = %v, want the rule naming the known ones", err)
	}
}
