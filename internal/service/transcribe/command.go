package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Command runs a user's recogniser (--asr command): Template is a shell
// command in which {input} becomes the path of a 16 kHz mono 16-bit WAV
// file, {output} the path of the JSON file it must write and {lang} the
// project's sourceLang, each single-quoted for sh. The JSON is
//
//	{"words": [{"word": "hello", "start": 0.52, "end": 0.81, "confidence": 0.93}, ...]}
//
// with times in seconds from the start of the input and confidence 0..1.
// A command that knows it cannot hear lang exits with status 3; clipperd then
// goes on without a transcript.
type Command struct {
	Template string
}

// ExitUnsupportedLanguage is the exit status by which a Command says it
// does not know the language.
const ExitUnsupportedLanguage = 3

// NewCommand checks template: it must name {input} and {output}.
func NewCommand(template string) (*Command, error) {
	if strings.TrimSpace(template) == "" {
		return nil, errors.New("--asr command needs --asr-command, a command line with {input} and {output}")
	}
	for _, p := range []string{"{input}", "{output}"} {
		if !strings.Contains(template, p) {
			return nil, fmt.Errorf("--asr-command %q has no %s placeholder", template, p)
		}
	}
	return &Command{Template: template}, nil
}

// Describe names the recogniser.
func (c *Command) Describe() string { return KindCommand + ": " + c.Template }

// Transcribe runs the command on wavPath and reads the words it wrote.
func (c *Command) Transcribe(ctx context.Context, wavPath, lang string) ([]Word, error) {
	dir, err := os.MkdirTemp(filepath.Dir(wavPath), "clipperd-asr-") // beside the wav: the job's directory
	if err != nil {
		return nil, fmt.Errorf("asr command: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "words.json")
	line := strings.NewReplacer("{input}", shellQuote(wavPath), "{output}", shellQuote(out), "{lang}", shellQuote(lang)).Replace(c.Template)
	if err := run(ctx, "asr command", "sh", []string{"-c", line}, nil, nil); err != nil {
		var exit interface{ ExitCode() int }
		if errors.As(err, &exit) && exit.ExitCode() == ExitUnsupportedLanguage {
			return nil, fmt.Errorf("%w %q: the asr command does not recognise it", ErrUnsupportedLanguage, lang)
		}
		return nil, err
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("asr command wrote no {output}: %w", err)
	}
	return ParseWordsJSON(data)
}

// shellQuote single-quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// ParseWordsJSON reads the JSON a Command writes, strictly: unknown fields,
// a missing or empty word, a missing time, start after end, negative times
// or a confidence outside 0..1 are errors naming the word's index.
func ParseWordsJSON(data []byte) ([]Word, error) {
	var doc struct {
		Words *[]struct {
			Word       *string  `json:"word"`
			Start      *float64 `json:"start"`
			End        *float64 `json:"end"`
			Confidence *float64 `json:"confidence"`
		} `json:"words"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("asr command output is not the documented JSON {\"words\":[{\"word\",\"start\",\"end\",\"confidence\"}]}: %w", err)
	}
	if doc.Words == nil {
		return nil, errors.New(`asr command output has no "words" list`)
	}
	words := make([]Word, 0, len(*doc.Words))
	for i, w := range *doc.Words {
		switch {
		case w.Word == nil || strings.TrimSpace(*w.Word) == "":
			return nil, fmt.Errorf("asr command output: words[%d] has no \"word\"", i)
		case w.Start == nil || w.End == nil:
			return nil, fmt.Errorf("asr command output: words[%d] (%q) needs \"start\" and \"end\" in seconds", i, *w.Word)
		case *w.Start < 0 || *w.End < *w.Start || math.IsInf(*w.End, 0):
			return nil, fmt.Errorf("asr command output: words[%d] (%q) has start %g and end %g: need 0 <= start <= end", i, *w.Word, *w.Start, *w.End)
		}
		conf := 1.0
		if w.Confidence != nil {
			if *w.Confidence < 0 || *w.Confidence > 1 {
				return nil, fmt.Errorf("asr command output: words[%d] (%q) has confidence %g outside 0..1", i, *w.Word, *w.Confidence)
			}
			conf = *w.Confidence
		}
		words = append(words, Word{Text: strings.TrimSpace(*w.Word), Start: *w.Start, End: *w.End, Confidence: conf})
	}
	return words, nil
}
