package quota

import (
	"errors"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestWithDefaultsFillsOnlyUnsetLimits(t *testing.T) {
	got := Limits{MaxConcurrent: 2, RateLimit: -1}.WithDefaults()
	want := Limits{RateLimit: 30, MaxConcurrent: 2, MonthlyCredits: 900, MaxCollections: 100}
	if got != want {
		t.Fatalf("WithDefaults = %+v, want %+v", got, want)
	}
	if Defaults() != (Limits{}).WithDefaults() {
		t.Fatal("Defaults and the zero Limits with defaults differ")
	}
}

func TestProjectCredits(t *testing.T) {
	for _, tc := range []struct {
		seconds float64
		want    int64
	}{
		{0, 10}, {30, 10}, {600, 10}, {601, 11}, {25 * 60, 25}, {36000, 600},
	} {
		if got := ProjectCredits(tc.seconds); got != tc.want {
			t.Errorf("ProjectCredits(%g) = %d, want %d", tc.seconds, got, tc.want)
		}
	}
}

func TestPostCreditsOnlyOnTwitter(t *testing.T) {
	for _, platform := range apitypes.SocialPlatforms {
		want := int64(0)
		if platform == "TWITTER" {
			want = 1
		}
		if got := PostCredits(platform); got != want {
			t.Errorf("PostCredits(%s) = %d, want %d", platform, got, want)
		}
	}
}

func TestRefundsOnlyBeforeAnythingWasProcessed(t *testing.T) {
	for _, s := range apitypes.Stages() {
		if got, want := RefundsOnStall(s), s == apitypes.StageImport; got != want {
			t.Errorf("RefundsOnStall(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestMonthlyPeriod(t *testing.T) {
	at := time.Date(2026, time.December, 31, 23, 59, 0, 0, time.FixedZone("x", -3600))
	if got := MonthOf(at); got != "2027-01" {
		t.Errorf("MonthOf = %s, want 2027-01 (UTC)", got)
	}
	if got := NextMonth(at); !got.Equal(time.Date(2027, time.February, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("NextMonth = %s", got)
	}
}

func TestCheckMonthly(t *testing.T) {
	now := time.Date(2026, time.November, 23, 0, 0, 0, 0, time.UTC)
	if err := CheckMonthly(890, 10, 900, now); err != nil {
		t.Fatalf("exactly at the cap: %v", err)
	}
	if err := CheckMonthly(10_000, 10, 0, now); err != nil {
		t.Fatalf("no limit: %v", err)
	}
	err := CheckMonthly(891, 10, 900, now)
	var capErr *MonthlyCapError
	if !errors.As(err, &capErr) || capErr.Used != 891 || capErr.Needed != 10 || capErr.Cap != 900 ||
		!capErr.ResetAt.Equal(time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("over the cap: %#v", err)
	}
}

func TestLimits(t *testing.T) {
	// The spec's numbers, decimal: a change here is a change of the service.
	if MaxSourceBytes != 30e9 || MaxLinkBytes != 10e9 || MaxDurationSec != 36000 || ReserveCredits != 10 {
		t.Errorf("limits = %d, %d, %d, %d", MaxSourceBytes, MaxLinkBytes, MaxDurationSec, ReserveCredits)
	}
}
