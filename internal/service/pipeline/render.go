package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// watermarkText is drawn on clips when renderPref.enableWatermark is true.
const watermarkText = "clipperd"

// renderName matches the files RENDER writes, so a retry can clear them.
var renderName = regexp.MustCompile(`^c\d+(\.preview\.mp4|\.mp4|\.srt|\.vtt)$`)

// renderStage renders each clip's export and preview, one clip at a time
// (ffmpeg already uses every core).
func (r *Runner) renderStage(ctx context.Context, j *job) error {
	opts, used, err := r.renderOptions(ctx, j)
	if err != nil {
		return err
	}
	j.renderUsed = used
	fillers := used.QuickstartConfig != nil && isTrue(used.QuickstartConfig.EnableRemoveFillerWords)
	if err := r.clearRenders(ctx, j.p.ID); err != nil {
		return fmt.Errorf("clear earlier renders: %w", err)
	}
	for i, pl := range j.plans {
		r.at(ctx, fmt.Sprintf("render %d", i))
		clipOpts := opts
		pl.keep = nil
		if fillers {
			pl.keep = fillerKeep(pl.h, pl.words)
			clipOpts.Keep = pl.keep
		}
		pl.joins = planJoins(pl, clipOpts, j.probe)
		if clipOpts.Broll, err = r.brollCuts(ctx, j, pl); err != nil {
			return err
		}
		if opts.Captions != nil || opts.Emoji != nil {
			lines := captionLines(planWords(pl), 0, clipLength(pl))
			if opts.Captions != nil {
				clipOpts.Captions = &media.Captions{Style: opts.Captions.Style, Lines: lines}
			}
			clipOpts.Emoji = clipEmoji(opts.Emoji, lines)
		}
		clipOpts.Hook = clipHook(opts.Hook, pl.title, pl.keywords)
		res, err := media.RenderClip(ctx, j.source, pl.h, pl.export, pl.preview, clipOpts)
		if err != nil {
			return fmt.Errorf("render clip %s (%s–%s): %w", pl.curationID, clock(pl.h.Start), clock(pl.h.End), err)
		}
		pl.durationSec = res.DurationSec
		pl.exportBytes, pl.previewBytes = res.ExportBytes, res.PreviewBytes
		// Rendered in the run's directory, stored by a rename on the single box.
		for key, file := range map[string]string{pl.curationID + ".mp4": pl.export, pl.curationID + ".preview.mp4": pl.preview} {
			if err := r.storeRender(ctx, blob.MediaKey(j.p.ID, key), file); err != nil {
				return fmt.Errorf("store clip %s: %w", key, err)
			}
		}
		if err := r.writeCaptions(ctx, j.p.ID, j.tmp, pl); err != nil {
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

// clearRenders removes clip files of an earlier attempt, which may have had
// more clips or been cut short.
func (r *Runner) clearRenders(ctx context.Context, project string) error {
	objects, err := r.cfg.Media.List(ctx, blob.MediaPrefix(project))
	if err != nil {
		return err
	}
	for _, o := range objects {
		if renderName.MatchString(strings.TrimPrefix(o.Key, blob.MediaPrefix(project))) {
			if err := r.cfg.Media.Delete(ctx, o.Key); err != nil {
				return err
			}
		}
	}
	return nil
}
