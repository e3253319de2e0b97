package media

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// CensorSpan is a stretch of a file's audio to censor, in seconds of the file.
type CensorSpan struct{ Start, End float64 }

// BeepHz is the frequency of the censor beep.
const BeepHz = 1000

// beepVolume is the beep's amplitude (of full scale): loud enough to hide a
// word, well short of clipping.
const beepVolume = 0.3

// CensorAudio writes in to out with the audio inside spans replaced by
// silence, or by a BeepHz sine when beep. Outside the spans the audio is the
// input's: a PCM WAV is copied sample for sample, a compressed file is
// encoded again (AAC) with only encoder noise. Video streams are copied
// untouched. in and out must differ.
func CensorAudio(ctx context.Context, in, out string, spans []CensorSpan, beep bool) error {
	if in == "" || out == "" || sameFile(in, out) || in == out {
		return errors.New("censor: in and out must be set and differ")
	}
	args := append(ffmpegBase(), "-i", toolexec.LocalURL(in))
	filter, label := censorFilter(spans, beep)
	if filter == "" {
		args = append(args, "-map", "0", "-c", "copy")
	} else {
		args = append(args, "-filter_complex", filter, "-map", "0:v?", "-map", label, "-c:v", "copy")
		if strings.HasSuffix(strings.ToLower(out), ".wav") {
			args = append(args, "-c:a", "pcm_s16le")
		} else {
			args = append(args, "-c:a", "aac", "-b:a", "160k", "-movflags", "+faststart")
		}
	}
	args = append(args, toolexec.LocalURL(out))
	return runTool(ctx, "censor", "ffmpeg", args, nil)
}

// censorFilter is the filter graph of CensorAudio and the label of its
// audio output; "" when no span has a length (nothing to censor).
//
// aeval works sample by sample (a timeline "enable" would act on whole
// frames and spill past a span): each channel's sample passes as it is
// outside the spans, and inside them is 0, or the beep, a BeepHz sine.
func censorFilter(spans []CensorSpan, beep bool) (string, string) {
	var on []string
	for _, s := range spans {
		if s.End > s.Start {
			on = append(on, fmt.Sprintf("between(t,%.4f,%.4f)", max(0, s.Start), s.End))
		}
	}
	if len(on) == 0 {
		return "", ""
	}
	inside := fmt.Sprintf("gt(%s,0)", strings.Join(on, "+"))
	replacement := "0"
	if beep {
		replacement = fmt.Sprintf("%g*sin(2*PI*%d*t)", beepVolume, BeepHz)
	}
	return fmt.Sprintf("[0:a:0]aeval=exprs='if(%s,%s,val(ch))':channel_layout=same[censored]", inside, replacement), "[censored]"
}
