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

func TestPublishTime(t *testing.T) {
	cases := []struct{ in, want, utc string }{
		{in: "2030-01-02T15:04:06Z", utc: "2030-01-02T15:04:06Z"},
		{in: "2030-01-02T17:04:06+02:00", utc: "2030-01-02T15:04:06Z"},
		{in: "2030-01-02T10:04:06.25-05:00", utc: "2030-01-02T15:04:06.25Z"},
		{in: "2030-01-02 15:04:06", want: PublishTimeRule + `, not "2030-01-02 15:04:06"`},
		{in: "2030-01-02", want: PublishTimeRule},
		{in: "", want: PublishTimeRule + `, not ""`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			at, err := PublishTime(tc.in)
			wantBroken(t, err, "", tc.want)
			if got := at.UTC().Format(time.RFC3339Nano); tc.want == "" && got != tc.utc {
				t.Errorf("instant %s, want %s", got, tc.utc)
			}
		})
	}
}

func TestPublishAfter(t *testing.T) {
	now := time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, tc := range []struct{ in, want string }{
		{"2030-01-02T16:04:06+01:00", ""},
		{"2030-01-02T16:04:05+01:00", "must be in the future, not 2030-01-02T16:04:05+01:00 (now is 2030-01-02T15:04:05Z)"},
		{"2030-01-02T10:04:04-05:00", "must be in the future"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			at, err := PublishTime(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			wantBroken(t, PublishAfter(tc.in, at, now), "", tc.want)
		})
	}
}
