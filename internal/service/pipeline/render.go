package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// watermarkText is drawn on clips when renderPref.enableWatermark is true.
const watermarkText = "clipperd"

// renderName matches the files RENDER writes (the clip's curation id
// first), so a retry can clear those of clips no longer planned.
var renderName = regexp.MustCompile(`^(c\d+)(\.preview\.mp4|\.mp4|\.srt|\.vtt)$`)

// renderStage renders each clip's export and preview as a piece of the
// run (pieces.go): one render per clip, which any worker with a free slot
// may take, this run included. The run works out each clip's render
// (renderSpec) here, where the plans are, and moves on once every clip is
// rendered.
func (r *Runner) renderStage(ctx context.Context, j *job) error {
	opts, used, err := r.renderOptions(ctx, j)
	if err != nil {
		return err
	}
	j.renderUsed = used
	fillers := used.QuickstartConfig != nil && isTrue(used.QuickstartConfig.EnableRemoveFillerWords)
	specs := make([][]byte, len(j.plans))
	for i, pl := range j.plans {
		if specs[i], err = r.renderSpecOf(ctx, j, pl, opts, fillers); err != nil {
			return err
		}
	}
	if err := r.clearRenders(ctx, j.p.ID, j.plans); err != nil {
		return fmt.Errorf("clear earlier renders: %w", err)
	}
	if err := r.planPieces(ctx, j, PieceRender, specs); err != nil {
		return fmt.Errorf("plan the renders: %w", err)
	}
	first := true
	results, err := r.gatherPieces(ctx, j, PieceRender, len(specs), func(int) {
		if first {
			first = false
			r.cfg.OnFirstClip(max(r.cfg.Store.Now().Sub(j.p.CreatedAt), 0))
		}
	})
	if err != nil {
		return err
	}
	for i, pl := range j.plans {
		var res media.RenderResult
		if err := json.Unmarshal(results[i], &res); err != nil {
			return fmt.Errorf("read the render of clip %s: %w", pl.curationID, err)
		}
		pl.durationSec = res.DurationSec
		pl.exportBytes, pl.previewBytes = res.ExportBytes, res.PreviewBytes
	}
	return nil
}

// renderSpec is one clip's render piece: everything its worker needs
// besides the source. Files (b-roll pictures, overlays) are named by
// their keys in the media, fetched by the worker.
type renderSpec struct {
	Clip    string              `json:"clip"` // its curation id: the names of its files
	H       media.Highlight     `json:"highlight"`
	Options media.RenderOptions `json:"options"` // Broll and Overlays paths are media keys
	// Words are the captions files' words, timed from the clip's start;
	// Length is the clip's length as cut, for them when the render reports
	// none.
	Words  []transcribe.Word `json:"words,omitempty"`
	Length float64           `json:"length"`
}

// renderSpecOf works out pl's render from the run's options (JSON).
func (r *Runner) renderSpecOf(ctx context.Context, j *job, pl *clipPlan, opts media.RenderOptions, fillers bool) ([]byte, error) {
	clipOpts := opts
	pl.keep = nil
	if fillers {
		pl.keep = fillerKeep(pl.h, pl.words)
		clipOpts.Keep = pl.keep
	}
	pl.joins = planJoins(pl, clipOpts, j.probe)
	var err error
	if clipOpts.Broll, err = r.brollCuts(ctx, j, pl); err != nil {
		return nil, err
	}
	if opts.Captions != nil || opts.Emoji != nil {
		lines := captionLines(planWords(pl), 0, clipLength(pl))
		if opts.Captions != nil {
			clipOpts.Captions = &media.Captions{Style: opts.Captions.Style, Lines: lines}
		}
		clipOpts.Emoji = clipEmoji(opts.Emoji, lines)
	}
	clipOpts.Hook = clipHook(opts.Hook, pl.title, pl.keywords)
	spec, err := json.Marshal(renderSpec{Clip: pl.curationID, H: pl.h, Options: clipOpts, Words: planWords(pl), Length: clipLength(pl)})
	if err != nil {
		return nil, fmt.Errorf("render of clip %s: %w", pl.curationID, err)
	}
	return spec, nil
}

// renderPiece renders one clip (a render piece): its export and preview,
// stored with their sums, and its captions files.
func (r *Runner) renderPiece(ctx context.Context, c *pieceClaim) ([]byte, error) {
	var s renderSpec
	if err := json.Unmarshal(c.piece.Spec, &s); err != nil {
		return nil, permanentf("read the render of clip %d: %v", c.piece.Index+1, err)
	}
	r.at(ctx, fmt.Sprintf("render %d", c.piece.Index))
	opts := s.Options
	opts.EncodePreset = r.cfg.EncodePreset
	if err := r.fetchRenderFiles(ctx, &opts, c.tmp); err != nil {
		return nil, err
	}
	export, preview := filepath.Join(c.tmp, s.Clip+".mp4"), filepath.Join(c.tmp, s.Clip+".preview.mp4")
	res, err := media.RenderClip(ctx, c.source, s.H, export, preview, opts)
	if err != nil {
		return nil, fmt.Errorf("render clip %s (%s–%s): %w", s.Clip, clock(s.H.Start), clock(s.H.End), err)
	}
	// A claim taken over while it rendered (its lease ended) stores
	// nothing: the claim holding the piece now stores its own render.
	if err := r.stillHeld(ctx, c); err != nil {
		return nil, err
	}
	// Rendered in the claim's directory, stored by a rename on the single box.
	project := c.piece.ProjectID
	for _, f := range []struct{ name, file string }{{s.Clip + ".mp4", export}, {s.Clip + ".preview.mp4", preview}} {
		if err := r.storeRender(ctx, blob.MediaKey(project, f.name), f.file); err != nil {
			return nil, fmt.Errorf("store clip %s: %w", f.name, err)
		}
	}
	length := res.DurationSec
	if length <= 0 {
		length = s.Length
	}
	if err := r.writeCaptions(ctx, project, c.tmp, s.Clip, s.Words, length); err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// fetchRenderFiles makes the media keys of opts' b-roll and overlays local
// files in dir.
func (r *Runner) fetchRenderFiles(ctx context.Context, opts *media.RenderOptions, dir string) error {
	fetched := map[string]string{}
	local := func(key string) (string, error) {
		if path, ok := fetched[key]; ok {
			return path, nil
		}
		path, err := blob.LocalFile(ctx, r.cfg.Media, key, dir)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", key, err)
		}
		fetched[key] = path
		return path, nil
	}
	var err error
	opts.Broll = slices.Clone(opts.Broll)
	for i := range opts.Broll {
		if opts.Broll[i].Path, err = local(opts.Broll[i].Path); err != nil {
			return err
		}
	}
	opts.Overlays = slices.Clone(opts.Overlays)
	for i := range opts.Overlays {
		if opts.Overlays[i].Path, err = local(opts.Overlays[i].Path); err != nil {
			return err
		}
	}
	return nil
}

// storeRender stores a rendered file as key with its size and SHA-256, by
// which it is checked before it is served whole or published.
func (r *Runner) storeRender(ctx context.Context, key, file string) error {
	sum, err := blob.PutFileSum(ctx, r.cfg.Media, key, file)
	if err != nil {
		return err
	}
	return r.cfg.Store.RecordMediaSum(ctx, key, store.MediaSum(sum))
}

// renderOptions resolves the layout and captions from the brand template's preferences,
// overridden by whatever renderPref sets, and returns the renderPref that was
// actually applied, for the clips.
func (r *Runner) renderOptions(ctx context.Context, j *job) (media.RenderOptions, apitypes.RenderPref, error) {
	rp := renderPref(j.p)
	tpl, err := r.cfg.Store.BrandTemplate(ctx, j.p.OrgID, brandTemplateID(j.p))
	if errors.Is(err, store.ErrNotFound) {
		// The template was removed after the project was created: the org default applies.
		r.log.Warn("brand template not found, using the default", "project", j.p.ID, "brandTemplateId", brandTemplateID(j.p))
		tpl, err = r.cfg.Store.BrandTemplate(ctx, j.p.OrgID, "")
	}
	if err != nil {
		return media.RenderOptions{}, rp, fmt.Errorf("read brand template: %w", err)
	}
	var base apitypes.RenderPref
	if tpl.Preferences != nil {
		base = *tpl.Preferences
	}

	aspect := strings.ToLower(strings.TrimSpace(rp.LayoutAspectRatio))
	if aspect == "" {
		aspect = strings.ToLower(strings.TrimSpace(base.LayoutAspectRatio))
	}
	if !slices.Contains(apitypes.AspectRatios, aspect) {
		aspect = apitypes.AspectPortrait
	}
	layout := pickLayout(base, rp)
	watermark := isTrue(base.EnableWatermark)
	if rp.EnableWatermark != nil {
		watermark = *rp.EnableWatermark
	}

	opts := media.RenderOptions{Aspect: aspect, Layout: layout, Source: j.probe} // probed at IMPORT of this run
	if a := j.analysis; a != nil {
		opts.Shots, opts.Follow = a.Shots, a.Follow
	}
	// fitLayoutCropRatio: renderPref's, else the template's (checked at create).
	used := rp
	if ratio := cmp.Or(rp.FitLayoutCropRatio, base.FitLayoutCropRatio); rules.RatioValue(ratio) > 0 {
		opts.FitCropRatio = rules.RatioValue(ratio)
		used.FitLayoutCropRatio = ratio
	}
	if watermark {
		opts.Watermark = watermarkText
	}
	if st, on := captionStyle(base, rp); on {
		opts.Captions = &media.Captions{Style: st} // each clip's lines are added at its render
		used.EnableCaption = &on
	}
	var capt *media.CaptionStyle
	if opts.Captions != nil {
		capt = &opts.Captions.Style
	}
	if e, on := emojiStyle(base, rp, capt); on {
		opts.Emoji = e // each clip's words are set at its render
		used.EnableEmoji = &on
	}
	if hk, on := hookStyle(base, rp); on {
		opts.Hook = hk // each clip's text is set at its render
		used.EnableVisualHook = &on
	}
	used.LayoutAspectRatio = aspect
	reportLayout(&used, layout)
	used.EnableWatermark = &watermark
	soundOptions(base, rp, &opts, &used)
	if removeFillers(base, rp) {
		on := true
		used.QuickstartConfig = &apitypes.QuickstartConfig{EnableRemoveFillerWords: &on}
	}
	if err := r.extrasOptions(ctx, j, base, rp, &opts, &used); err != nil {
		return opts, used, err
	}
	return opts, used, nil
}

// pickLayout resolves the layout switches of the template (base) and of renderPref (rp) to
// one layout: a layout renderPref picks wins; else the template's, unless renderPref turns
// that one off; else the crop following the speaker (fit when renderPref or the template
// turns the crop off). Several true switches in one renderPref (a request's or a
// template's) are settled by rules.Layout's precedence.
func pickLayout(base, rp apitypes.RenderPref) string {
	pr := rules.Layout(rp.LayoutValue)
	if pr.Layout != "" {
		return pr.Layout
	}
	pb := rules.Layout(base.LayoutValue)
	if pb.Layout != "" && !pr.Off[pb.Layout] {
		return pb.Layout
	}
	if pr.Off[media.LayoutFollow] || (pb.Layout == "" && pb.Off[media.LayoutFollow]) {
		return media.LayoutFit
	}
	return media.LayoutFollow
}

// reportLayout sets every layout switch of the reported renderPref to say which layout was
// applied: its switch true (skipReframe and enableFillLayout for center, enableFillLayout
// for follow), the others false.
func reportLayout(used *apitypes.RenderPref, layout string) {
	for _, s := range rules.LayoutSwitches {
		on := s.Layout == layout || (s.Wire == "enableFillLayout" && layout == media.LayoutCenter)
		*used.LayoutSwitch(s.Wire) = &on
	}
	crop := layout == media.LayoutFollow || layout == media.LayoutCenter
	for wire, contradicts := range map[string]bool{"disableFitLayout": layout == media.LayoutFit, "disableFillLayout": crop} {
		if f := used.LayoutSwitch(wire); *f != nil && **f && contradicts {
			off := false
			*f = &off
		}
	}
}

// clipLength is the length of the clip as cut, before it is rendered.
func clipLength(pl *clipPlan) float64 {
	if len(pl.keep) > 0 {
		return media.Length(pl.keep) - media.Overlap(pl.joins)
	}
	return pl.h.End - pl.h.Start
}

// clearRenders removes the clip files of an earlier attempt that had more
// clips than plans; the files of the planned clips are the render pieces'
// (one an earlier run finished with the same render is kept).
func (r *Runner) clearRenders(ctx context.Context, project string, plans []*clipPlan) error {
	planned := map[string]bool{}
	for _, pl := range plans {
		planned[pl.curationID] = true
	}
	objects, err := r.cfg.Media.List(ctx, blob.MediaPrefix(project))
	if err != nil {
		return err
	}
	for _, o := range objects {
		m := renderName.FindStringSubmatch(strings.TrimPrefix(o.Key, blob.MediaPrefix(project)))
		if m != nil && !planned[m[1]] {
			if err := r.cfg.Media.Delete(ctx, o.Key); err != nil {
				return err
			}
		}
	}
	return nil
}
