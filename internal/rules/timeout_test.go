package rules

import (
	"strings"
	"testing"
)

func TestTimeout(t *testing.T) {
	for _, tc := range []struct {
		in, wantErr string
	}{
		{"30s", ""},
		{"2h45m", ""},
		{"1ns", ""},
		{"0s", `not "0s" (0s)`},
		{"0", `not "0" (0s)`},
		{"-5m", `not "-5m" (-5m0s)`},
		{"10 minutes", `not "10 minutes"`},
		{"", `not ""`},
	} {
		err := Timeout(tc.in)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("Timeout(%q) = %v, want nil", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), TimeoutRule) || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("Timeout(%q) = %v, want the rule and %q", tc.in, err, tc.wantErr)
		}
	}
}
