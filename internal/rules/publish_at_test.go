package rules

import (
	"testing"
	"time"
)

func TestPublishAt(t *testing.T) {
	now := time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)
	cases := []struct{ in, want string }{
		{"2030-01-02T15:04:06Z", ""},
		{"2030-01-02T15:04:05.5Z", ""},
		{"2031-06-01T00:00:00+00:00", ""},
		{"2030-01-02T15:04:05Z", "must be in the future, not 2030-01-02T15:04:05Z (now is 2030-01-02T15:04:05Z)"},
		{"2029-12-31T23:59:59Z", "must be in the future"},
		{"2030-01-02T17:04:06+02:00", PublishAtRule + `: "2030-01-02T17:04:06+02:00" is not in UTC`},
		{"2030-01-02 15:04:06", PublishAtRule + `, not "2030-01-02 15:04:06"`},
		{"2030-01-02", PublishAtRule},
		{"tomorrow", PublishAtRule},
		{"", PublishAtRule + `, not ""`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			wantBroken(t, PublishAt(tc.in, now), "", tc.want)
		})
	}
}
