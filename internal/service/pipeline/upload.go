package pipeline

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// uploadStage publishes the renders as the project's exportable clips,
// replacing those of any earlier attempt. The files are already where the
// API serves them from, so "upload" is making them visible.
func (r *Runner) uploadStage(ctx context.Context, j *job) error {
	p := j.p
	cp := curationPref(p)
	genre := strings.TrimSpace(cp.Genre)
	if genre == "" {
		genre = "Auto"
	}
	promptName := cp.CustomPrompt
	if promptName == "" {
		promptName = cp.Model
	}
	if promptName == "" {
		promptName = apitypes.ModelClipBasic
	}
	now := r.cfg.Store.Now().Truncate(time.Millisecond) // as stored, so j.clips equal a later read
	clips := make([]store.Clip, len(j.plans))
	for i, pl := range j.plans {
		used := j.renderUsed
		clips[i] = store.Clip{
			ID:            p.ID + "." + pl.curationID,
			ProjectID:     p.ID,
			CurationID:    pl.curationID,
			RunID:         j.runID,
			OrgID:         p.OrgID,
			UserID:        p.UserID,
			URIForPreview: medialink.Path(p.ID, pl.curationID+".preview.mp4"), // under the public URL of each read
			URIForExport:  medialink.Path(p.ID, pl.curationID+".mp4"),
			StorageUsed:   pl.exportBytes + pl.previewBytes,
			DurationMs:    int64(math.Round(pl.durationSec * 1000)),
			TimeRanges:    timeRanges(pl.h, pl.keep),
			Keywords:      pl.keywords,
			PromptName:    promptName,
			Title:         pl.title,
			Description:   pl.description,
			Hashtags:      pl.hashtags,
			Text:          pl.text, // the transcript's words in the clip; empty without one
			Genre:         genre,
			Subgenre:      "",
			CreatedAt:     now,
			UpdatedAt:     now,
			ProductTier:   p.ProductTier,
			RenderPref:    &used,
		}
	}
	if err := r.cfg.Store.ReplaceRunClips(ctx, p.ID, p.OrgID, j.run, clips); err != nil {
		return fmt.Errorf("save clips: %w", err)
	}
	j.clips = clips
	return nil
}

func ms(sec float64) int64 { return int64(math.Round(sec * 1000)) }
