package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// curateStage analyses the source in one decode pass, recognises its
// speech (a long one in pieces, transcript.go), and picks the highlights inside the processed span, with lengths
// allowed by curationPref.clipDurations: runs of whole sentences when there
// is a transcript, favouring those that say the topicKeywords or the words
// of customPrompt. skipCurate/skipSlicing make one clip of the whole span.
func (r *Runner) curateStage(ctx context.Context, j *job) error {
	cp := curationPref(j.p)
	// A long span's transcription is cut into pieces first, which other
	// workers recognise while this run analyses the picture.
	chunked, err := r.startTranscription(ctx, j)
	if err != nil {
		return err
	}
	a, err := media.AnalyzeProbed(ctx, j.source, j.probe, j.tmp) // probed at IMPORT of this run
	if err != nil {
		return fmt.Errorf("analyse the video: %w", err) // an ffmpeg failure: worth a retry
	}
	if err := r.transcribe(ctx, j, chunked); err != nil {
		return err
	}
	opts := media.CurateOptions{
		Durations:  cp.ClipDurations,
		WholeRange: isTrue(cp.SkipCurate) || isTrue(cp.SkipSlicing),
		Words:      mediaWords(j.words),
		Keywords:   curationKeywords(cp),
	}
	if j.ranged {
		span := j.span
		opts.Range = &span
	}
	hs, err := media.PickHighlights(a, opts)
	if err != nil {
		return permanentf("choosing clips with curationPref.clipDurations %s in %s: %w", durations(cp.ClipDurations), spanText(j), err)
	}
	if len(hs) == 0 {
		return permanentf("no clip with a length allowed by curationPref.clipDurations %s fits in %s", durations(cp.ClipDurations), spanText(j))
	}
	j.highlights, j.analysis = hs, a
	return nil
}

func mediaWords(words []transcribe.Word) []media.Word {
	out := make([]media.Word, len(words))
	for i, w := range words {
		out[i] = media.Word{Text: w.Text, Start: w.Start, End: w.End}
	}
	return out
}

// curationKeywords are the words that raise a clip's score: those of
// topicKeywords (ClipBasic) and of customPrompt (ClipAnything), without
// English stop words.
func curationKeywords(cp apitypes.CurationPref) []string {
	var out []string
	for _, k := range append(slices.Clone(cp.TopicKeywords), cp.CustomPrompt) {
		for _, w := range strings.FieldsFunc(k, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if !transcribe.StopWord(w) {
				out = append(out, w)
			}
		}
	}
	return out
}

func isTrue(b *bool) bool { return b != nil && *b }

func durations(ds [][2]float64) string {
	if len(ds) == 0 {
		return "(default [15,60] s)"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("[%g,%g]", d[0], d[1])
	}
	return "[" + strings.Join(parts, ",") + "] s"
}

func spanText(j *job) string {
	if j.ranged {
		return fmt.Sprintf("curationPref.range %s–%s", clock(j.span.Start), clock(j.span.End))
	}
	return fmt.Sprintf("the video (%s long)", clock(j.span.End))
}
