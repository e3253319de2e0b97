package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/socialcopy"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// clipPlan is one clip as it moves through REFINE, RENDER and UPLOAD.
type clipPlan struct {
	curationID string
	h          media.Highlight

	title, description, hashtags string
	keywords                     []string
	text                         string            // the transcript's words in the clip
	words                        []transcribe.Word // those words, in source seconds

	keep  []media.Interval // the pieces of h rendered, when fillers were cut; nil = all of h
	joins []media.Join     // the transitions between its pieces (sound.go)

	export, preview           string
	exportBytes, previewBytes int64
	durationSec               float64
}

// refineStage names and describes each highlight from what is known. With
// words spoken in the clip, its text is those words and its title,
// description, keywords and hashtags come from them (transcriptCopy);
// without, from its place in the source, the title, topicKeywords and genre,
// and the text stays empty rather than invented.
func (r *Runner) refineStage(_ context.Context, j *job) error {
	cp := curationPref(j.p)
	title := videoTitle(j.p)
	keywords := cleanKeywords(cp.TopicKeywords)
	tags := hashtags(keywords, cp.Genre)
	whole := isTrue(cp.SkipCurate) || isTrue(cp.SkipSlicing)
	model := cp.Model
	if model == "" {
		model = apitypes.ModelClipBasic
	}
	width := max(2, len(fmt.Sprint(len(j.highlights))))
	j.plans = make([]*clipPlan, len(j.highlights))
	for i, h := range j.highlights {
		id := fmt.Sprintf("c%0*d", width, i+1)
		pl := &clipPlan{
			curationID: id,
			h:          h,
			title:      fmt.Sprintf("Clip %d of %s (%s–%s)", i+1, title, clock(h.Start), clock(h.End)),
			hashtags:   tags,
			keywords:   keywords,
			export:     filepath.Join(j.tmp, id+".mp4"),
			preview:    filepath.Join(j.tmp, id+".preview.mp4"),
		}
		var d strings.Builder
		if whole {
			fmt.Fprintf(&d, "%s to %s of %s, uncut (curation skipped).", clock(h.Start), clock(h.End), title)
		} else {
			fmt.Fprintf(&d, "%s to %s of %s (%.0f s), chosen by %s curation from loudness, speech pauses and scene changes.",
				clock(h.Start), clock(h.End), title, h.End-h.Start, model)
		}
		if len(keywords) > 0 {
			fmt.Fprintf(&d, " Topics: %s.", strings.Join(keywords, ", "))
		}
		pl.description = d.String()
		transcriptCopy(pl, j.words, cp.Genre)
		j.plans[i] = pl
	}
	return nil
}

func cleanKeywords(in []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, k := range in {
		k = strings.TrimSpace(k)
		if k == "" || seen[strings.ToLower(k)] {
			continue
		}
		seen[strings.ToLower(k)] = true
		out = append(out, k)
	}
	return out
}

// hashtags makes "#Tag" words of the keywords and the genre (Auto is not a
// topic), joined by spaces as the service reports them.
func hashtags(keywords []string, genre string) string {
	words := slices.Clone(keywords)
	if g := strings.TrimSpace(genre); g != "" && !strings.EqualFold(g, "Auto") {
		words = append(words, g)
	}
	return strings.Join(socialcopy.Hashtags(words...), " ")
}
