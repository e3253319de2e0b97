package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// transcribe recognises the speech of the processed span and stores it as
// the project's transcript: the words of the chunks startTranscription
// planned as pieces (chunked), or of the whole span here. A language the
// recogniser does not know leaves the project without a transcript
// (logged); any other recogniser failure (a crash, a command writing bad
// JSON) is a transient stall, retried like an ffmpeg failure, since a
// recogniser that crashed on a load spike or was fixed by the operator
// succeeds on the next run.
func (r *Runner) transcribe(ctx context.Context, j *job, chunked bool) error {
	j.words = nil
	var words []transcribe.Word
	var err error
	switch {
	case chunked:
		words, err = r.gatherTranscription(ctx, j)
	case r.recognises(j):
		words, err = r.recognise(ctx, j.source, j.tmp, j.span, transcribeLang(j.p), recognitionHints(j.p))
	}
	switch {
	case errors.Is(err, transcribe.ErrUnsupportedLanguage):
		r.log.Info("no transcript: "+err.Error(), "project", j.p.ID, "sourceLang", transcribeLang(j.p))
	case err != nil:
		return fmt.Errorf("transcribe the speech (%s): %w", r.cfg.Transcriber.Describe(), err)
	default:
		j.words = words
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

// recognises reports whether j's speech is to be recognised: a recogniser
// is set and the source has sound.
func (r *Runner) recognises(j *job) bool {
	_, none := r.cfg.Transcriber.(transcribe.None)
	return !none && j.probe != nil && j.probe.HasAudio
}

func transcribeLang(p *store.Project) string {
	if p.ImportPref != nil {
		return p.ImportPref.SourceLang
	}
	return ""
}

// A span longer than transcribePieceMax seconds is transcribed in chunks of
// transcribePieceMin to transcribePieceMax seconds cut at pauses, each a
// piece of the run; a shorter one in one go. Each chunk is long enough that
// starting the recogniser is a small part of it, and short enough that a
// long source makes several for the workers to share.
const (
	transcribePieceMin = 120.0
	transcribePieceMax = 240.0
)

// transcribeSpec is one chunk of a transcription: its span in source
// seconds and what the recogniser is told.
type transcribeSpec struct {
	Start float64  `json:"start"`
	End   float64  `json:"end"`
	Lang  string   `json:"lang,omitempty"`
	Hints []string `json:"hints,omitempty"`
}

// transcribeResult is a chunk's words in source seconds, or why the
// recogniser made none (a language it does not know).
type transcribeResult struct {
	Words       []transcribe.Word `json:"words"`
	Unsupported string            `json:"unsupported,omitempty"`
}

// startTranscription plans the chunks of j's transcription as pieces, when
// its span is long enough to cut, so other workers recognise them while
// this run analyses the picture; it reports whether it did.
func (r *Runner) startTranscription(ctx context.Context, j *job) (bool, error) {
	length := j.span.End - j.span.Start
	if !r.recognises(j) || length <= transcribePieceMax {
		return false, nil
	}
	pauses, err := transcribe.Pauses(ctx, j.source, j.span.Start, j.span.End)
	if err != nil {
		return false, fmt.Errorf("find the pauses to cut the transcription at: %w", err)
	}
	chunks := transcribe.ChunkSpans(length, pauses, transcribePieceMin, transcribePieceMax)
	lang, hints := transcribeLang(j.p), recognitionHints(j.p)
	specs := make([][]byte, len(chunks))
	for i, c := range chunks {
		if specs[i], err = json.Marshal(transcribeSpec{Start: j.span.Start + c.Start, End: j.span.Start + c.End, Lang: lang, Hints: hints}); err != nil {
			return false, err
		}
	}
	if err := r.planPieces(ctx, j, PieceTranscribe, specs); err != nil {
		return false, fmt.Errorf("plan the transcription: %w", err)
	}
	j.chunks = len(specs)
	r.log.Info("transcription in pieces", "project", j.p.ID, "chunks", len(chunks))
	return true, nil
}

// gatherTranscription waits for (and works) the chunks startTranscription
// planned, and joins their words in order.
func (r *Runner) gatherTranscription(ctx context.Context, j *job) ([]transcribe.Word, error) {
	results, err := r.gatherPieces(ctx, j, PieceTranscribe, j.chunks, nil)
	if err != nil {
		return nil, err
	}
	var words []transcribe.Word
	for i, b := range results {
		var res transcribeResult
		if err := json.Unmarshal(b, &res); err != nil {
			return nil, fmt.Errorf("read chunk %d of the transcription: %w", i+1, err)
		}
		if res.Unsupported != "" {
			return nil, fmt.Errorf("%s: %w", res.Unsupported, transcribe.ErrUnsupportedLanguage)
		}
		words = append(words, res.Words...)
	}
	return words, nil
}

// transcribePiece recognises one chunk of a transcription (a piece).
func (r *Runner) transcribePiece(ctx context.Context, c *pieceClaim) ([]byte, error) {
	var s transcribeSpec
	if err := json.Unmarshal(c.piece.Spec, &s); err != nil {
		return nil, permanentf("read chunk %d of the transcription: %v", c.piece.Index+1, err)
	}
	words, err := r.recognise(ctx, c.source, c.tmp, media.Interval{Start: s.Start, End: s.End}, s.Lang, s.Hints)
	if errors.Is(err, transcribe.ErrUnsupportedLanguage) {
		return json.Marshal(transcribeResult{Unsupported: err.Error()})
	}
	if err != nil {
		return nil, fmt.Errorf("transcribe the speech from %s to %s (%s): %w", clock(s.Start), clock(s.End), r.cfg.Transcriber.Describe(), err)
	}
	return json.Marshal(transcribeResult{Words: words})
}

// recognise extracts the audio of span of source into dir and recognises
// it; word times come back in source seconds.
func (r *Runner) recognise(ctx context.Context, source, dir string, span media.Interval, lang string, hints []string) ([]transcribe.Word, error) {
	// The recogniser's own files go beside the wav.
	wav := filepath.Join(dir, "transcript.wav")
	defer os.Remove(wav)
	if err := transcribe.ExtractWAV(ctx, source, span.Start, span.End, wav); err != nil {
		return nil, err
	}
	var words []transcribe.Word
	var err error
	if h, ok := r.cfg.Transcriber.(transcribe.Hinted); ok {
		words, err = h.TranscribeHinted(ctx, wav, lang, hints)
	} else {
		words, err = r.cfg.Transcriber.Transcribe(ctx, wav, lang)
	}
	// Captions, titles and keywords are made of these words: numbers in digits.
	words = transcribe.NumbersAsDigits(words)
	for i := range words {
		words[i].Start += span.Start
		words[i].End += span.Start
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

// writeCaptions stores the clip's words (timed from its start, over any
// cuts) as <clip>.srt and <clip>.vtt beside its renders, for a clip length
// long. Like the renders they are written in a temporary directory tmp and
// stored by PutFile: a rename on the single box, with no sync.
func (r *Runner) writeCaptions(ctx context.Context, project, tmp, clip string, words []transcribe.Word, length float64) error {
	cues := transcribe.Cues(words, 0, math.Max(0, length))
	for ext, body := range map[string]string{".srt": transcribe.SRT(cues), ".vtt": transcribe.VTT(cues)} {
		file := filepath.Join(tmp, clip+ext)
		err := os.WriteFile(file, []byte(body), 0o644)
		if err == nil {
			err = blob.PutFile(ctx, r.cfg.Media, blob.MediaKey(project, clip+ext), file)
		}
		if err != nil {
			return fmt.Errorf("write %s captions of clip %s: %w", ext, clip, err)
		}
	}
	return nil
}
