// Package quota is what clipperd charges and allows, in one place: the
// limits of an organization and their defaults (the spec's values), the
// limits of a source, the credit price of a project with the reserve taken
// at create, when credits are given back, and the monthly credit period.
// The store applies charges in its transactions, the API and the pipeline
// ask this package what to charge and what to allow.
package quota

import (
	"fmt"
	"math"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// Defaults of an organization's limits, the spec's values.
const (
	// DefaultRateLimit is the requests per minute per API key on the
	// project and clip endpoints.
	DefaultRateLimit = 30
	// DefaultPostRateLimit is the requests per minute per API key on the
	// endpoints that post clips or start jobs on them (post tasks, publish
	// schedules, social copy and censor jobs), a budget apart from
	// RateLimit's.
	DefaultPostRateLimit = 30
	// DefaultMaxConcurrent is the projects in flight per organization.
	DefaultMaxConcurrent = 4
	// DefaultMonthlyCredits is the credits per organization and calendar month.
	DefaultMonthlyCredits = 900
	// DefaultMaxCollections is the collections per organization.
	DefaultMaxCollections = 100
)

// Limits are an organization's limits. A zero field means its default.
type Limits struct {
	RateLimit      int // requests per minute per key on project and clip endpoints
	PostRateLimit  int // requests per minute per key on the posting endpoints
	MaxConcurrent  int // projects in flight per organization
	MonthlyCredits int // credits per organization and calendar month
	MaxCollections int // collections per organization
	// StorageQuota is the bytes an organization may keep in uploads and
	// project media; 0 (the default) is no quota.
	StorageQuota int64
}

// Defaults are the spec's limits.
func Defaults() Limits {
	return Limits{
		RateLimit:      DefaultRateLimit,
		PostRateLimit:  DefaultPostRateLimit,
		MaxConcurrent:  DefaultMaxConcurrent,
		MonthlyCredits: DefaultMonthlyCredits,
		MaxCollections: DefaultMaxCollections,
	}
}

// WithDefaults returns l with every zero or negative field set to its default.
func (l Limits) WithDefaults() Limits {
	d := Defaults()
	if l.RateLimit <= 0 {
		l.RateLimit = d.RateLimit
	}
	if l.PostRateLimit <= 0 {
		l.PostRateLimit = d.PostRateLimit
	}
	if l.MaxConcurrent <= 0 {
		l.MaxConcurrent = d.MaxConcurrent
	}
	if l.MonthlyCredits <= 0 {
		l.MonthlyCredits = d.MonthlyCredits
	}
	if l.MaxCollections <= 0 {
		l.MaxCollections = d.MaxCollections
	}
	return l
}

// Limits of a source (service-interface.md, Limits). Sizes are decimal, as
// the spec writes them.
const (
	// MaxSourceBytes is the largest source of any kind: 30 GB.
	MaxSourceBytes int64 = 30_000_000_000
	// MaxLinkBytes is the largest file streamed from a link to a media file: 10 GB.
	MaxLinkBytes int64 = 10_000_000_000
	// MaxDurationSec is the longest source: 10 hours.
	MaxDurationSec = 10 * 3600
)

// ReserveCredits is the API project minimum, reserved when a project is
// created and counted toward its full cost once the source is probed.
const ReserveCredits int64 = 10

// ProjectCredits is the full cost of a project that processes seconds of
// source: one credit per started minute, and at least the reserve.
func ProjectCredits(seconds float64) int64 {
	return max(ReserveCredits, int64(math.Ceil(seconds/60)))
}

// PostCredits is the price of publishing one post to platform: a credit on
// TWITTER, nothing elsewhere (service-interface.md, Limits). A post is
// charged when it is made, by a post task at once and by a schedule when it
// fires.
func PostCredits(platform string) int64 {
	if platform == apitypes.SocialTwitter {
		return 1
	}
	return 0
}

// RefundsOnStall reports whether a project that stalls for good in stage
// gets its credits back: only when nothing was processed yet (IMPORT).
func RefundsOnStall(stage apitypes.Stage) bool { return stage == apitypes.StageImport }

// MonthOf is the credit period key of t (UTC calendar month).
func MonthOf(t time.Time) string { return t.UTC().Format("2006-01") }

// NextMonth is the first instant of the month after t, when the cap resets.
func NextMonth(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

// MonthlyCapError is returned when a charge would pass the monthly credit cap.
type MonthlyCapError struct {
	Used, Needed, Cap int64
	ResetAt           time.Time
}

func (e *MonthlyCapError) Error() string {
	return fmt.Sprintf("monthly API cap of %d credits reached (%d used, %d needed); resets at %s",
		e.Cap, e.Used, e.Needed, e.ResetAt.Format(time.RFC3339))
}

// CheckMonthly returns a *MonthlyCapError when taking needed more credits,
// with used already taken this month at now, would pass limit (<= 0: no limit).
func CheckMonthly(used, needed, limit int64, now time.Time) error {
	if limit > 0 && used+needed > limit {
		return &MonthlyCapError{Used: used, Needed: needed, Cap: limit, ResetAt: NextMonth(now)}
	}
	return nil
}

// StorageQuotaError is returned when storing more for an organization would
// pass its storage quota (Limits.StorageQuota). It is not retried by
// clients: space comes back only when uploads or media expire, or when the
// quota is raised.
type StorageQuotaError struct {
	Used, Adding, Quota int64
}

func (e *StorageQuotaError) Error() string {
	msg := fmt.Sprintf("storage quota of %s per organization reached (%s used", FormatSize(e.Quota), FormatSize(e.Used))
	if e.Adding > 0 {
		msg += fmt.Sprintf(", %s more requested", FormatSize(e.Adding))
	}
	return msg + "); unused uploads and expired project media are deleted over time, or raise --org-storage-quota"
}

// CheckStorage returns a *StorageQuotaError when an organization that
// stores used bytes may not store adding more under quota (<= 0: no quota).
// Once the quota is used up nothing more is taken, even an upload of
// unknown size (adding 0).
func CheckStorage(used, adding, quota int64) error {
	if quota > 0 && (used >= quota || used+adding > quota) {
		return &StorageQuotaError{Used: used, Adding: adding, Quota: quota}
	}
	return nil
}
