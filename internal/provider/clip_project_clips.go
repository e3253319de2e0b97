package provider

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// A refresh of a COMPLETE clipper_clip_project reads the project (one
// request) and lists its clips (a second) only when the clips in state may
// no longer be what the service would list:
//   - the project changed since they were listed: its updated_at or
//     visibility differs from those recorded, in private state, with the
//     listing (a change of visibility, a retry after a stall, a state
//     written before the record existed);
//   - a clip's download address expires within clipAddressMinValidity, or
//     carries a query whose expiry cannot be read (addresses without a
//     query do not expire).
//
// The spec lets the service change a project's fields (all read by every
// refresh) and sign its clips' addresses for a limited time; it shows no
// other change of a COMPLETE project's clips, and a change it makes to a
// project moves its updated_at. Listing every project's clips on every
// refresh cost a second request per project against a budget of 30 a
// minute per key.

// clipsListedKey is the private state key of clipsListing.
const clipsListedKey = "clips_listed"

// clipAddressMinValidity is how long the clips' addresses in state must
// stay valid after a refresh that keeps them: a day, so that what a plan or
// apply hands on can still be downloaded that day. clipperd signs addresses
// for a week (30 days for public projects), so a project's clips are listed
// about once in six days of daily plans.
const clipAddressMinValidity = 24 * time.Hour

// clipsListing is what the project looked like when its clips were listed.
type clipsListing struct {
	UpdatedAt  string `json:"updated_at"`
	Visibility string `json:"visibility"`
}

// privateState is the resource's private state in a request or response
// (the framework's type is internal).
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// recordClipsListed notes in private the project p whose clips were just
// listed; a project not COMPLETE has none to keep, and loses the note.
func recordClipsListed(ctx context.Context, private privateState, p *apitypes.Project) diag.Diagnostics {
	if p.Stage != apitypes.StageComplete {
		if held, _ := private.GetKey(ctx, clipsListedKey); len(held) == 0 {
			return nil
		}
		return private.SetKey(ctx, clipsListedKey, nil) // an empty value removes the key
	}
	value, err := json.Marshal(clipsListing{UpdatedAt: p.UpdatedAt, Visibility: p.Visibility})
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Unable to record the clip listing", err.Error())
		return diags
	}
	return private.SetKey(ctx, clipsListedKey, value)
}

// clipsStillCurrent reports whether m's clips, listed earlier, may be kept
// for the project p just read (see the top of this file); now is the clock.
func clipsStillCurrent(ctx context.Context, private privateState, m *clipProjectModel, p *apitypes.Project, now time.Time) bool {
	if p.Stage != apitypes.StageComplete || m.Clips.IsNull() || m.Clips.IsUnknown() {
		return false
	}
	raw, diags := private.GetKey(ctx, clipsListedKey)
	var listed clipsListing
	if diags.HasError() || len(raw) == 0 || json.Unmarshal(raw, &listed) != nil {
		return false
	}
	if listed.UpdatedAt != p.UpdatedAt || listed.Visibility != p.Visibility {
		return false
	}
	var clips []exportableClipModel
	if diags := m.Clips.ElementsAs(ctx, &clips, false); diags.HasError() {
		return false
	}
	if m.ClipCount.IsNull() || m.ClipCount.IsUnknown() || m.ClipCount.ValueInt64() != int64(len(clips)) {
		return false
	}
	for _, c := range clips {
		for _, addr := range []string{c.URIForExport.ValueString(), c.URIForPreview.ValueString()} {
			if !validFor(addr, now, clipAddressMinValidity) {
				tflog.Debug(ctx, "A clip's address expires soon: listing the project's clips again",
					map[string]any{"clip_id": c.ID.ValueString()})
				return false
			}
		}
	}
	return true
}

// validFor reports whether the download address addr is still valid d after
// now: it has no query (nothing signed that could expire), or its query
// names an expiry later than that. A query without an expiry this reads is
// taken as expiring: the clips are listed again.
func validFor(addr string, now time.Time, d time.Duration) bool {
	u, err := url.Parse(addr)
	if err != nil {
		return false
	}
	if u.RawQuery == "" {
		return true
	}
	expires, ok := addressExpiry(u.Query())
	return ok && expires.After(now.Add(d))
}

// addressExpiry reads the expiry of a signed address from its query, in the
// forms in use: clipperd's and CloudFront's `expires`/`Expires` (Unix
// seconds), and the signing time plus lifetime of S3's
// `X-Amz-Date`/`X-Amz-Expires` and Cloud Storage's `X-Goog-Date`/`X-Goog-Expires`.
func addressExpiry(q url.Values) (time.Time, bool) {
	for _, name := range []string{"expires", "Expires"} {
		if v := q.Get(name); v != "" {
			secs, err := strconv.ParseInt(v, 10, 64)
			return time.Unix(secs, 0), err == nil
		}
	}
	for _, prefix := range []string{"X-Amz-", "X-Goog-"} {
		date, life := q.Get(prefix+"Date"), q.Get(prefix+"Expires")
		if date == "" || life == "" {
			continue
		}
		signed, err := time.Parse("20060102T150405Z", date)
		secs, err2 := strconv.ParseInt(life, 10, 64)
		if err != nil || err2 != nil {
			return time.Time{}, false
		}
		return signed.Add(time.Duration(secs) * time.Second), true
	}
	return time.Time{}, false
}
