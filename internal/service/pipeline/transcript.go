package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// transcribe recognises the speech of the processed span and stores it as
// the project's transcript. A language the recogniser does not know leaves
// the project without a transcript (logged); any other recogniser failure
// (a crash, a command writing bad JSON) is a transient stall, retried like an
// ffmpeg failure, since a recogniser that crashed on a load spike or was
// fixed by the operator succeeds on the next run.
func (r *Runner) transcribe(ctx context.Context, j *job) error {
	j.words = nil
	lang := ""
	if j.p.ImportPref != nil {
		lang = j.p.ImportPref.SourceLang
	}
	if _, none := r.cfg.Transcriber.(transcribe.None); !none && j.probe != nil && j.probe.HasAudio {
		words, err := r.recognise(ctx, j, lang)
		switch {
		case errors.Is(err, transcribe.ErrUnsupportedLanguage):
			r.log.Info("no transcript: "+err.Error(), "project", j.p.ID, "sourceLang", lang)
		case err != nil:
			return fmt.Errorf("transcribe the speech (%s): %w", r.cfg.Transcriber.Describe(), err)
		default:
			j.words = words
		}
	}
	rows := make([]store.TranscriptWord, len(j.words))
	for i, w := range j.words {
		rows[i] = store.TranscriptWord{Word: w.Text, StartMs: ms(w.Start), EndMs: ms(w.End), Confidence: w.Confidence}
	}
	if err := r.cfg.Store.ReplaceTranscript(ctx, j.p.ID, rows); err != nil {
		return fmt.Errorf("save transcript: %w", err)
	}
	if len(j.words) > 0 {
		r.log.Info("transcript", "project", j.p.ID, "words", len(j.words), "asr", r.cfg.Transcriber.Describe())
	}
	return nil
}

// recognise extracts the span's audio and recognises it; word times come
// back in source seconds.
func (r *Runner) recognise(ctx context.Context, j *job, lang string) ([]transcribe.Word, error) {
	// The recogniser's own files go beside the wav, in the run's directory.
	wav := filepath.Join(j.tmp, "transcript.wav")
	defer os.Remove(wav)
	if err := transcribe.ExtractWAV(ctx, j.source, j.span.Start, j.span.End, wav); err != nil {
		return nil, err
	}
	var words []transcribe.Word
	var err error
	if h, ok := r.cfg.Transcriber.(transcribe.Hinted); ok {
		words, err = h.TranscribeHinted(ctx, wav, lang, recognitionHints(j.p))
	} else {
		words, err = r.cfg.Transcriber.Transcribe(ctx, wav, lang)
	}
	// Captions, titles and keywords are made of these words: numbers in digits.
	words = transcribe.NumbersAsDigits(words)
	for i := range words {
		words[i].Start += j.span.Start
		words[i].End += j.span.Start
	}
	return words, err
}

// recognitionHints are the project's own words the recogniser is to
// expect: its topic keywords, custom prompt and uploaded video's title.
func recognitionHints(p *store.Project) []string {
	cp := curationPref(p)
	texts := append(slices.Clone(cp.TopicKeywords), cp.CustomPrompt)
	if a := p.UploadedVideoAttr; a != nil {
		texts = append(texts, a.Title)
	}
	return transcribe.BiasWords(texts...)
}

// maxKeyPhrases is how many key phrases become a clip's keywords.
const maxKeyPhrases = 5

// transcriptCopy sets a clip's text, and its title, description, keywords
// and hashtags from the words spoken in it, when there are any; nothing is
// added that was not said.
func transcriptCopy(pl *clipPlan, words []transcribe.Word, genre string) {
	pl.words = transcribe.Within(words, pl.h.Start, pl.h.End)
	if len(pl.words) == 0 {
		return
	}
	pl.text = transcribe.Text(pl.words)
	runs := transcribe.Runs(pl.words)
	phrases := transcribe.KeyPhrases(pl.words, maxKeyPhrases)
	title := transcribe.Text(runs[0])
	if n := len(runs[0]); (n < 3 || n > 12) && len(phrases) > 0 {
		title = phrases[0] // the opening is a fragment or a monologue: its main topic names it better
	}
	pl.title = transcribe.Sentence(truncateWords(title, 80))
	pl.description = transcribe.Sentence(truncateWords(pl.text, 280))
	pl.keywords = phrases
	pl.hashtags = hashtags(phrases, genre)
}

// truncateWords cuts s at a word boundary to at most n bytes, marking the
// cut with an ellipsis.
func truncateWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut <= 0 {
		cut = n
	}
	return s[:cut] + "…"
}

// writeCaptions stores the clip's words as cNN.srt and cNN.vtt beside its
// renders, timed from the clip's start (over any cuts). Like the renders
// they are written in the run's directory tmp and stored by PutFile: a
// rename on the single box, with no sync, as before the blob store.
func (r *Runner) writeCaptions(ctx context.Context, project, tmp string, pl *clipPlan) error {
	length := pl.durationSec
	if length <= 0 {
		length = pl.h.End - pl.h.Start
	}
	cues := transcribe.Cues(planWords(pl), 0, math.Max(0, length))
	for ext, body := range map[string]string{".srt": transcribe.SRT(cues), ".vtt": transcribe.VTT(cues)} {
		file := filepath.Join(tmp, pl.curationID+ext)
		err := os.WriteFile(file, []byte(body), 0o644)
		if err == nil {
			err = blob.PutFile(ctx, r.cfg.Media, blob.MediaKey(project, pl.curationID+ext), file)
		}
		if err != nil {
			return fmt.Errorf("write %s captions of clip %s: %w", ext, pl.curationID, err)
		}
	}
	return nil
}
