// Package transcribe turns speech into timed words: the Transcriber
// interface and its recognisers (Pocketsphinx, Command, OpenAI, None), the audio
// they all read (ExtractWAV: 16 kHz mono 16-bit WAV), and the pure parsers
// of their outputs.
package transcribe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Word is one recognised word; Start and End are seconds from the start of
// the audio, Confidence is 0..1.
type Word struct {
	Text       string
	Start, End float64
	Confidence float64
}

// Transcriber recognises the words of a 16 kHz mono 16-bit WAV file (see
// ExtractWAV). lang is the project's sourceLang ("", "auto" or a language
// code); a recogniser that cannot hear it returns ErrUnsupportedLanguage.
type Transcriber interface {
	Transcribe(ctx context.Context, wavPath, lang string) ([]Word, error)
	// Describe names the recogniser for logs and /healthz.
	Describe() string
}

// ErrUnsupportedLanguage is returned for a sourceLang the recogniser does
// not know; the project goes on without a transcript.
var ErrUnsupportedLanguage = errors.New("unsupported language")

// The recognisers --asr selects.
const (
	KindPocketsphinx = "pocketsphinx"
	KindCommand      = "command"
	KindOpenAI       = "openai"
	KindNone         = "none"
)

// PocketsphinxTool is the program Pocketsphinx runs.
const PocketsphinxTool = "pocketsphinx_continuous"

// Options are the --asr flags: the recogniser Kind and what it needs.
type Options struct {
	Kind string
	// Command is --asr-command's template, for KindCommand.
	Command string
	// URL (--asr-url), Model (--asr-model) and APIKey (ASRKeyEnv) are
	// KindOpenAI's server.
	URL, Model, APIKey string
}

// New returns the recogniser o.Kind names. A missing tool is not an error:
// the recogniser fails when used, and DefaultKind tells the caller to warn.
func New(o Options) (Transcriber, error) {
	switch o.Kind {
	case KindPocketsphinx:
		return &Pocketsphinx{}, nil
	case KindCommand:
		return NewCommand(o.Command)
	case KindOpenAI:
		return NewOpenAI(o.URL, o.Model, o.APIKey)
	case KindNone, "":
		return None{}, nil
	}
	return nil, fmt.Errorf("unknown recogniser %q: use %s, %s, %s or %s", o.Kind, KindPocketsphinx, KindCommand, KindOpenAI, KindNone)
}

// DefaultKind is pocketsphinx when pocketsphinx_continuous is on PATH, else
// none.
func DefaultKind() string {
	if _, err := exec.LookPath(PocketsphinxTool); err == nil {
		return KindPocketsphinx
	}
	return KindNone
}

// None makes no transcript (--asr none).
type None struct{}

// Transcribe returns no words.
func (None) Transcribe(context.Context, string, string) ([]Word, error) { return nil, nil }

// Describe says why there are no transcripts.
func (None) Describe() string {
	if DefaultKind() == KindNone {
		return "none (" + PocketsphinxTool + " not found)"
	}
	return "none"
}

// English reports whether lang is one pocketsphinx's en-us model hears:
// English, unset, or auto (which pocketsphinx cannot check: it assumes
// English).
func English(lang string) bool {
	l := strings.ToLower(strings.TrimSpace(lang))
	return l == "" || l == "auto" || l == "en" || l == "english" || strings.HasPrefix(l, "en-") || strings.HasPrefix(l, "en_")
}

// ExtractWAV writes the audio of src from start to end seconds (end <= start:
// to the end) to dst as 16 kHz mono 16-bit WAV, what every recogniser reads.
func ExtractWAV(ctx context.Context, src string, start, end float64, dst string) error {
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}
	if start > 0 {
		args = append(args, "-ss", fmt.Sprintf("%.3f", start))
	}
	if end > start {
		args = append(args, "-t", fmt.Sprintf("%.3f", end-start))
	}
	args = append(args, "-i", toolexec.LocalURL(src), "-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", dst)
	return run(ctx, "extract audio: ffmpeg", "ffmpeg", args, nil, nil)
}

// Pauses finds the pauses in the audio of src from start to end seconds
// (as the chunking of long audio does: silencedetect), in seconds from
// start, so a long transcription can be cut where no word is.
func Pauses(ctx context.Context, src string, start, end float64) ([]Span, error) {
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "info"}
	if start > 0 {
		args = append(args, "-ss", fmt.Sprintf("%.3f", start))
	}
	args = append(args, "-t", fmt.Sprintf("%.3f", end-start), "-i", toolexec.LocalURL(src), "-vn",
		"-af", fmt.Sprintf("silencedetect=n=%ddB:d=%g", pauseNoiseDB, pauseMinSec), "-f", "null", "-")
	var log strings.Builder
	if err := run(ctx, "find pauses: ffmpeg", "ffmpeg", args, nil, &log); err != nil {
		return nil, err
	}
	return ParseSilences(log.String(), end-start), nil
}

// run runs a tool; stdout goes to out and stderr to log (nil discards
// them). A failure carries the tool's last stderr lines, or the context's
// error when cancelled.
func run(ctx context.Context, what, name string, args []string, out, log *strings.Builder) error {
	cmd := toolexec.Command(ctx, name, args...)
	tail := &toolexec.Tail{}
	if out != nil {
		cmd.Stdout = out
	}
	cmd.Stderr = tail
	if log != nil {
		cmd.Stderr = io.MultiWriter(tail, log)
	}
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("%s: %w", what, ctxErr)
		}
		if msg := tail.LastLines(6); msg != "" {
			return fmt.Errorf("%s: %w: %s", what, err, msg)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Hinted is a recogniser that can be told words the audio is likely to
// contain (the project's own: BiasWords of its topic keywords, prompt and
// title), to hear them where the sound fits.
type Hinted interface {
	TranscribeHinted(ctx context.Context, wavPath, lang string, hints []string) ([]Word, error)
}
