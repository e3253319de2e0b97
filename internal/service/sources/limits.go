package sources

// Limits of a source (service-interface.md, Limits). Sizes are decimal, as
// the spec writes them.
const (
	// MaxSourceBytes is the largest source of any kind: 30 GB.
	MaxSourceBytes int64 = 30_000_000_000
	// MaxLinkBytes is the largest file streamed from a link to a media file: 10 GB.
	MaxLinkBytes int64 = 10_000_000_000
	// MaxDurationSec is the longest source: 10 hours.
	MaxDurationSec = 10 * 3600
	// ReserveCredits is the API project minimum, reserved when a project is
	// created and counted toward its full cost once the source is probed.
	ReserveCredits int64 = 10
)
