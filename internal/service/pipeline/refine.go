package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
)

// clipPlan is one clip as it moves through REFINE, RENDER and UPLOAD.
type clipPlan struct {
	curationID string
	h          media.Highlight

	title, description, hashtags string
	keywords                     []string

	export, preview           string
	exportBytes, previewBytes int64
	durationSec               float64
}

// refineStage names and describes each highlight from what is known: its
// place in the source, the title, topicKeywords and genre. There is no
// transcript, so the clips' text stays empty rather than invented.
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
			export:     filepath.Join(j.dir, id+".mp4"),
			preview:    filepath.Join(j.dir, id+".preview.mp4"),
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
	var tags []string
	seen := map[string]bool{}
	add := func(s string) {
		t := hashtag(s)
		if t != "" && !seen[strings.ToLower(t)] {
			seen[strings.ToLower(t)] = true
			tags = append(tags, t)
		}
	}
	for _, k := range keywords {
		add(k)
	}
	if g := strings.TrimSpace(genre); g != "" && !strings.EqualFold(g, "Auto") {
		add(g)
	}
	return strings.Join(tags, " ")
}

// hashtag turns "machine learning" into "#MachineLearning".
func hashtag(s string) string {
	var b strings.Builder
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		rs := []rune(w)
		if len(words) > 1 {
			rs[0] = unicode.ToUpper(rs[0])
		}
		b.WriteString(string(rs))
	}
	if b.Len() == 0 {
		return ""
	}
	return "#" + b.String()
}
