package quota

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestWithDefaultsFillsOnlyUnsetLimits(t *testing.T) {
	got := Limits{MaxConcurrent: 2, RateLimit: -1}.WithDefaults()
	want := Limits{RateLimit: 30, PostRateLimit: 30, MaxConcurrent: 2, MonthlyCredits: 900, MaxCollections: 100}
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

func TestCheckStorage(t *testing.T) {
	cases := []struct {
		used, adding, quota int64
		refused             bool
	}{
		{used: 100, adding: 1 << 40, quota: 0},           // no quota
		{used: 10, adding: 5, quota: 20},                 // fits
		{used: 10, adding: 10, quota: 20},                // exactly full
		{used: 10, adding: 11, quota: 20, refused: true}, // would pass it
		{used: 20, adding: 0, quota: 20, refused: true},  // used up: nothing of unknown size either
		{used: 25, adding: 0, quota: 20, refused: true},
	}
	for _, c := range cases {
		err := CheckStorage(c.used, c.adding, c.quota)
		var qe *StorageQuotaError
		if got := errors.As(err, &qe); got != c.refused {
			t.Errorf("CheckStorage(%d, %d, %d) = %v, want refused %v", c.used, c.adding, c.quota, err, c.refused)
		}
	}
	err := CheckStorage(21<<30, 1<<20, 20<<30)
	if want := "storage quota of 20 GiB per organization reached (21 GiB used, 1 MiB more requested)"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want it to start %q", err, want)
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"0": 0, "512": 512, "20GiB": 20 << 30, "20 GiB": 20 << 30, "1.5MiB": 3 << 19, "500MB": 500_000_000, "2TB": 2e12, "7B": 7,
	}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "GiB", "-1GiB", "20 parsecs", "1e30TiB", "NaN"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 512: "512 B", 1536: "1.5 KiB", 20 << 30: "20 GiB", 3 << 40: "3 TiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
