package media

import (
	"context"
	"fmt"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// B-roll: cut-aways to pictures of an organisation's library over the spans
// whose words match an item's keywords. Only the picture changes: the audio
// of the clip runs on underneath.
const (
	// BrollMinSec and BrollMaxSec bound one cut-away: shorter flickers, longer
	// hides the speaker for too long.
	BrollMinSec = 1.5
	BrollMaxSec = 3.0
	// BrollMaxShare is the most of a clip that cut-aways may cover.
	BrollMaxShare = 0.3
	// brollTail: a cut-away lasts the matching word plus this, within the bounds.
	brollTail = 1.0
	// brollGap: the speaker is seen at least this long between two cut-aways.
	brollGap = 1.0
)

// Visual describes an image or video file as ffprobe sees it.
type Visual struct {
	Width, Height int
	Still         bool    // an image (one picture), not a timed video
	DurationSec   float64 // 0 for a still
	FormatName    string
}

// ProbeVisual describes path, an image or a video; anything else (audio
// only, text, a damaged file) is ErrNotVideo.
func ProbeVisual(ctx context.Context, path string) (*Visual, error) {
	raw, _, err := ffprobeJSON(ctx, path, func(error) error {
		return fmt.Errorf("%w: %s is neither an image nor a video ffmpeg reads", ErrNotVideo, path)
	})
	if err != nil {
		return nil, err
	}
	v := &Visual{FormatName: raw.Format.FormatName}
	for _, s := range raw.Streams {
		if s.CodecType == "video" && s.Width > 0 && s.Height > 0 {
			v.Width, v.Height = s.Width, s.Height
			if quarterTurn(s.Tags.Rotate, s.SideDataList) {
				v.Width, v.Height = s.Height, s.Width
			}
			break
		}
	}
	if v.Width == 0 {
		return nil, fmt.Errorf("%w: %s has no picture (format %s): want an image or a video", ErrNotVideo, path, v.FormatName)
	}
	v.DurationSec = parseSeconds(raw.Format.Duration)
	v.Still = strings.HasSuffix(v.FormatName, "_pipe") || v.FormatName == "image2" || v.DurationSec == 0
	if v.Still {
		v.DurationSec = 0
	}
	return v, nil
}

// BrollItem is one picture of a b-roll library, on local disk.
type BrollItem struct {
	Path     string
	Keywords []string
}

// BrollCut shows the picture at Path over [Start, End) of the clip (clip
// seconds), scaled and cropped to fill the frame.
type BrollCut struct {
	Path       string
	Start, End float64
}

// PlanBroll picks the cut-aways of a clip clipLen seconds long from its
// words (clip seconds): at each spoken word whose stem matches a keyword of
// an item (the stems topicKeywords match by), the first such item is shown
// from the word's start for the word plus brollTail seconds, at least
// BrollMinSec and at most BrollMaxSec, brollGap apart, until BrollMaxShare of
// the clip is covered; a cut-away that would end past the clip or the share
// is shortened, or left out when less than BrollMinSec remains.
func PlanBroll(words []Word, items []BrollItem, clipLen float64) []BrollCut {
	terms := make([]map[string]bool, len(items))
	for i, it := range items {
		terms[i] = keywordTerms(it.Keywords)
	}
	budget := BrollMaxShare * clipLen
	var out []BrollCut
	free := 0.0 // the earliest start of the next cut-away
	for _, w := range words {
		if w.Start < free || w.Start < 0 || w.End < w.Start {
			continue
		}
		item := -1
		for i := range items {
			if terms[i][stem(w.Text)] {
				item = i
				break
			}
		}
		if item < 0 {
			continue
		}
		length := min(BrollMaxSec, max(BrollMinSec, w.End-w.Start+brollTail), clipLen-w.Start, budget)
		if length < BrollMinSec-1e-9 {
			continue
		}
		out = append(out, BrollCut{Path: items[item].Path, Start: w.Start, End: w.Start + length})
		budget -= length
		free = w.Start + length + brollGap
	}
	return out
}

// brollGraph lays the cut-aways over the open chain graph (the clip's
// picture, size pixels): each picture is read by a movie source, scaled to
// cover the frame and centre-cropped, starts at its cut's start (a video
// from its first frame, holding its last one if shorter) and is shown only
// within the cut.
func brollGraph(graph string, cuts []BrollCut, size [2]int) string {
	for i, c := range cuts {
		graph += fmt.Sprintf("[brm%d];movie=filename=%s,trim=end=%.3f,scale=%d:%d:force_original_aspect_ratio=increase:flags=bicubic,crop=%d:%d,setsar=1,"+
			"setpts=PTS-STARTPTS+%.3f/TB[brp%d];[brm%d][brp%d]overlay=x=0:y=0:eof_action=repeat:enable='between(t,%.3f,%.3f)'",
			i, toolexec.FilterValue(c.Path), c.End-c.Start, size[0], size[1], size[0], size[1], c.Start, i, i, i, c.Start, c.End-0.001)
	}
	return graph
}
