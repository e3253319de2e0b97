package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// brollLibrary is an org's b-roll library during a render: the items, and
// the keys of those a clip used so far that were found in the media
// (checked once, and only when a clip cuts away to them).
type brollLibrary struct {
	items []*store.BrollItem
	there map[string]bool
}

// extrasOptions resolves the b-roll and the screen overlays of a render
// from the template (base) and renderPref (rp): j.broll is the org's b-roll
// library when enableBroll is on (each clip's cut-aways are planned at its
// render), and opts.Overlays the screenOverlays (by media key, checked
// here), unless disableScreenOverlay is true. used reports what was
// applied.
func (r *Runner) extrasOptions(ctx context.Context, j *job, base, rp apitypes.RenderPref, opts *media.RenderOptions, used *apitypes.RenderPref) error {
	broll := isTrue(base.EnableBroll)
	if rp.EnableBroll != nil {
		broll = *rp.EnableBroll
	}
	used.EnableBroll = &broll
	j.broll = nil
	if broll {
		items, err := r.cfg.Store.BrollItems(ctx, j.p.OrgID)
		if err != nil {
			return err
		}
		j.broll = &brollLibrary{items: items, there: map[string]bool{}}
	}

	overlays := rp.ScreenOverlays
	if len(overlays) == 0 {
		overlays = base.ScreenOverlays
	}
	// screenOverlayFileId is the one-overlay form: an upload drawn over the
	// whole frame (a frame or border picture with transparency), under the
	// list's items.
	single := derefOr(rp.ScreenOverlayFileID, derefOr(base.ScreenOverlayFileID, ""))
	if overlaysOff(base, rp) {
		overlays, single = nil, ""
	}
	used.ScreenOverlays = overlays
	opts.Overlays = nil
	if single != "" {
		path, err := r.overlayFile(ctx, j, "renderPref.screenOverlayFileId", apitypes.ScreenOverlay{Object: &apitypes.StoredFile{ID: single}})
		if err != nil {
			return err
		}
		opts.Overlays = append(opts.Overlays, overlayPlace(path, nil))
		used.ScreenOverlayFileID = &single
	}
	for i, o := range overlays {
		path, err := r.overlayFile(ctx, j, fmt.Sprintf("renderPref.screenOverlays[%d].object.id", i), o)
		if err != nil {
			return err
		}
		opts.Overlays = append(opts.Overlays, overlayPlace(path, o.Rect))
	}
	on := len(opts.Overlays) > 0
	used.EnableScreenOverlay = &on
	return nil
}

// overlaysOff: disableScreenOverlay true, or enableScreenOverlay false, in
// renderPref, else in the template, turns the screen overlays off.
func overlaysOff(base, rp apitypes.RenderPref) bool {
	if off, set := overlaySwitch(rp); set {
		return off
	}
	off, _ := overlaySwitch(base)
	return off
}

// overlaySwitch tells whether p turns the overlays off, and whether it says
// anything about them.
func overlaySwitch(p apitypes.RenderPref) (off, set bool) {
	if isTrue(p.DisableScreenOverlay) || (p.EnableScreenOverlay != nil && !*p.EnableScreenOverlay) {
		return true, true
	}
	return false, p.DisableScreenOverlay != nil || p.EnableScreenOverlay != nil
}

func derefOr(s *string, def string) string {
	if s != nil && *s != "" {
		return *s
	}
	return def
}

// overlayFile is the media key of the overlay's upload (named field in
// renderPref), checked to be a picture or a video (fetched into the run's
// directory to probe it; each render piece fetches it again); an upload
// that is not (or no longer) a complete one of the project's org fails the
// run for good, naming the field as the API does.
func (r *Runner) overlayFile(ctx context.Context, j *job, field string, o apitypes.ScreenOverlay) (string, error) {
	if o.Object == nil || o.Object.ID == "" {
		return "", permanentf("%s: is required: the uploadId of the overlay's picture", field)
	}
	up, err := r.cfg.Store.GetUpload(ctx, o.Object.ID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (up.OrgID != j.p.OrgID || !up.Complete)) {
		return "", permanentf("%s: %q is not a complete upload of this organization", field, o.Object.ID)
	}
	if err != nil {
		return "", fmt.Errorf("look up upload %s: %w", o.Object.ID, err)
	}
	path, err := blob.LocalFile(ctx, r.cfg.Media, up.Key, j.tmp)
	if errors.Is(err, blob.ErrNotFound) || errors.Is(err, blob.ErrInvalidKey) {
		return "", permanentf("%s: the bytes of upload %s are gone from the server: upload the picture again", field, up.ID)
	}
	if err != nil {
		return "", fmt.Errorf("read upload %s: %w", up.ID, err)
	}
	if _, err := media.ProbeVisual(ctx, path); errors.Is(err, media.ErrNotVideo) {
		return "", permanentf("%s: upload %s is not an image or a video", field, up.ID)
	} else if err != nil {
		return "", err
	}
	return up.Key, nil
}

// overlayPlace is the overlay's box from its rect (percentages of the
// frame): an absent xPct or yPct is 0, an absent wPct or hPct the rest of
// the frame, so no rect covers the whole frame.
func overlayPlace(path string, r *apitypes.Rect) media.Overlay {
	o := media.Overlay{Path: path, W: 1, H: 1}
	if r == nil {
		return o
	}
	pct := func(v *float64, def float64) float64 {
		if v == nil {
			return def
		}
		return *v / 100
	}
	o.X, o.Y = pct(r.XPct, 0), pct(r.YPct, 0)
	o.W, o.H = pct(r.WPct, 1-o.X), pct(r.HPct, 1-o.Y)
	return o
}

// brollCuts are the cut-aways of a clip from the library, at its words
// matching an item's keywords (media.PlanBroll), each naming the media key
// of the picture it shows (its render piece fetches it). An item whose file
// is gone is left out of the library for the rest of the render.
func (r *Runner) brollCuts(ctx context.Context, j *job, pl *clipPlan) ([]media.BrollCut, error) {
	lib := j.broll
	if lib == nil || len(lib.items) == 0 {
		return nil, nil
	}
	words := clipWords(pl.words, pl.h, pl.keep)
	mw := make([]media.Word, len(words))
	for i, w := range words {
		mw[i] = media.Word{Text: w.Text, Start: w.Start, End: w.End}
	}
	for {
		items := make([]media.BrollItem, len(lib.items))
		for i, it := range lib.items {
			items[i] = media.BrollItem{Path: it.Key, Keywords: it.Keywords} // the key until fetched
		}
		cuts := media.PlanBroll(mw, items, clipLength(pl))
		gone := ""
		for _, c := range cuts {
			if lib.there[c.Path] {
				continue
			}
			_, err := r.cfg.Media.Stat(ctx, c.Path)
			if errors.Is(err, blob.ErrNotFound) {
				gone = c.Path
				break
			}
			if err != nil {
				return nil, fmt.Errorf("read b-roll %s: %w", c.Path, err)
			}
			lib.there[c.Path] = true
		}
		if gone == "" {
			return cuts, nil
		}
		r.log.Warn("b-roll picture missing, skipped", "project", j.p.ID, "key", gone)
		lib.items = slices.DeleteFunc(lib.items, func(it *store.BrollItem) bool { return it.Key == gone })
	}
}
