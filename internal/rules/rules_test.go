package rules

import (
	"errors"
	"strings"
	"testing"
)

// wantBroken fails unless err breaks a rule at field with a message holding
// rule; rule "" wants no error at all.
func wantBroken(t *testing.T, err error, field, rule string) {
	t.Helper()
	if rule == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want a rules.Error holding %q, got %v", rule, err)
	}
	if e.Field != field {
		t.Errorf("field %q, want %q (%v)", e.Field, field, err)
	}
	if !strings.Contains(e.Rule, rule) {
		t.Errorf("rule %q does not hold %q", e.Rule, rule)
	}
}

func TestErrorNamesTheField(t *testing.T) {
	if got := (&Error{Field: "startSec", Rule: "must be >= 0, not -1"}).Error(); got != "startSec: must be >= 0, not -1" {
		t.Errorf("got %q", got)
	}
	if got := (&Error{Rule: "must be a ratio"}).Error(); got != "must be a ratio" {
		t.Errorf("got %q", got)
	}
}

func TestAttributeNames(t *testing.T) {
	for wire, want := range map[string]string{
		"startSec": "start_sec", "topicKeywords": "topic_keywords", "url": "url", "fitLayoutCropRatio": "fit_layout_crop_ratio",
	} {
		if got := AttributeNames(wire); got != want {
			t.Errorf("AttributeNames(%q) = %q, want %q", wire, got, want)
		}
		if got := APINames(wire); got != wire {
			t.Errorf("APINames(%q) = %q", wire, got)
		}
	}
}

// stringCase is a value for a rule of one string and the rule text it must
// break ("" when it is valid).
type stringCase struct{ in, want string }

func checkStringRule(t *testing.T, rule func(string) error, cases []stringCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			wantBroken(t, rule(tc.in), "", tc.want)
		})
	}
}
