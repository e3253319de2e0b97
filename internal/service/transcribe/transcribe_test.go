package transcribe

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func TestParsePocketsphinx(t *testing.T) {
	out := `the quick brown fox
<s> 0.090 0.140 1.000100
the 0.150 0.260 0.891533
[NOISE] 0.27 0.30 0.5
read(2) 0.540 0.930 0.992130
<sil> 0.94 1.0 1
++UH++ 1.0 1.1 0.2
fox 0.940 1.440 -0.1
</s> 3.010 3.120 1.000000
INFO: something 1 2
`
	want := []Word{
		{"the", 0.15, 0.26, 0.891533},
		{"read", 0.54, 0.93, 0.99213},
		{"fox", 0.94, 1.44, 0},
	}
	if got := ParsePocketsphinx(out); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := ParsePocketsphinx(""); got == nil || len(got) != 0 {
		t.Errorf("empty output: %#v", got)
	}
}

func TestParseSilences(t *testing.T) {
	log := `[silencedetect @ 0x1] silence_start: 0
[silencedetect @ 0x1] silence_end: 1.5 | silence_duration: 1.5
size=N/A time=00:00:10.00
[silencedetect @ 0x1] silence_start: 4.25
[silencedetect @ 0x1] silence_end: 5 | silence_duration: 0.75
[silencedetect @ 0x1] silence_start: 9.5`
	want := []Span{{0, 1.5}, {4.25, 5}, {9.5, 10}}
	if got := ParseSilences(log, 10); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestChunkSpans(t *testing.T) {
	for _, tc := range []struct {
		name     string
		duration float64
		pauses   []Span
		want     []Span
	}{
		{"short", 20, nil, []Span{{0, 20}}},
		{"no pause: cut at max", 130, nil, []Span{{0, 60}, {60, 120}, {120, 130}}},
		{"longest pause in reach", 100, []Span{{10, 12}, {35, 35.5}, {44, 46}, {70, 70.4}}, []Span{{0, 45}, {45, 100}}},
		{"pause too early is ignored", 70, []Span{{20, 25}}, []Span{{0, 60}, {60, 70}}},
	} {
		if got := ChunkSpans(tc.duration, tc.pauses, 30, 60); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseWordsJSON(t *testing.T) {
	got, err := ParseWordsJSON([]byte(`{"words":[{"word":" hi ","start":0.5,"end":0.8,"confidence":0.9},{"word":"there","start":0.9,"end":1.2}]}`))
	want := []Word{{"hi", 0.5, 0.8, 0.9}, {"there", 0.9, 1.2, 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v", got, err)
	}
	for doc, msg := range map[string]string{
		`[]`: "not the documented JSON",
		`{}`: `no "words"`,
		`{"words":[{"word":"a","start":1,"end":2,"x":1}]}`:          "unknown field",
		`{"words":[{"start":1,"end":2}]}`:                           `words[0] has no "word"`,
		`{"words":[{"word":"a","start":1}]}`:                        `needs "start" and "end"`,
		`{"words":[{"word":"a","start":2,"end":1}]}`:                "0 <= start <= end",
		`{"words":[{"word":"a","start":1,"end":2,"confidence":2}]}`: "outside 0..1",
	} {
		if _, err := ParseWordsJSON([]byte(doc)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one saying %q", doc, err, msg)
		}
	}
}

func TestNew(t *testing.T) {
	if _, err := New(Options{Kind: "whisper"}); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := New(Options{Kind: KindCommand, Command: "asr {input}"}); err == nil || !strings.Contains(err.Error(), "{output}") {
		t.Errorf("template without {output}: %v", err)
	}
	if tr, err := New(Options{Kind: KindNone}); err != nil || !strings.HasPrefix(tr.Describe(), "none") {
		t.Errorf("none: %v %v", tr, err)
	}
}

func TestCommandTranscriber(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "asr.sh")
	body := `#!/bin/sh
# $1 input, $2 output, $3 lang
[ -s "$1" ] || { echo "no input" >&2; exit 1; }
[ "$3" = de ] && exit 3
[ "$3" = xx ] && { echo "model crashed" >&2; exit 2; }
printf '{"words":[{"word":"hello","start":0.1,"end":0.4,"confidence":0.8}]}' > "$2"
`
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(dir, "in put's.wav")
	if err := os.WriteFile(wav, []byte("RIFF"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewCommand(script + " {input} {output} {lang}")
	if err != nil {
		t.Fatal(err)
	}
	words, err := c.Transcribe(t.Context(), wav, "en")
	if err != nil || !reflect.DeepEqual(words, []Word{{"hello", 0.1, 0.4, 0.8}}) {
		t.Errorf("got %v, %v", words, err)
	}
	if _, err := c.Transcribe(t.Context(), wav, "de"); !errors.Is(err, ErrUnsupportedLanguage) {
		t.Errorf("exit 3: %v, want ErrUnsupportedLanguage", err)
	}
	if _, err := c.Transcribe(t.Context(), wav, "xx"); err == nil || !strings.Contains(err.Error(), "model crashed") {
		t.Errorf("crash: %v, want the command's stderr", err)
	}
}

func TestPocketsphinxRejectsOtherLanguages(t *testing.T) {
	if _, err := (&Pocketsphinx{}).Transcribe(t.Context(), "unused.wav", "de"); !errors.Is(err, ErrUnsupportedLanguage) {
		t.Errorf("de: %v", err)
	}
	for _, l := range []string{"", "auto", "en", "en-US", "EN_gb"} {
		if !English(l) {
			t.Errorf("English(%q) = false", l)
		}
	}
}

// The sentences festival speaks in the recognition tests.
var sentences = []string{
	"The quick brown fox jumps over the lazy dog.",
	"We are going to the market to buy some fresh bread.",
	"Please call me when you arrive at the station.",
	"The weather today is sunny and warm.",
}

// Pocketsphinx hears festival's speech well: a low word error rate, and
// every word timed inside the sentence it belongs to. Small chunks make the
// sentences fall in several chunks recognised in parallel.
func TestPocketsphinxRecognisesSpeech(t *testing.T) {
	toolexectest.RequireTools(t, append(speechtest.Tools, PocketsphinxTool)...)
	dir := t.TempDir()
	src, spans := speechtest.Speech(t, dir, sentences, 1.0)
	wav := filepath.Join(dir, "extracted.wav")
	if err := ExtractWAV(t.Context(), src, 0, 0, wav); err != nil {
		t.Fatal(err)
	}
	p := &Pocketsphinx{}
	started := time.Now()
	words, err := p.Transcribe(t.Context(), wav, "auto")
	took := time.Since(started)
	if err != nil {
		t.Fatal(err)
	}
	audio := spans[len(spans)-1].End + 1
	var heard []string
	for _, w := range words {
		heard = append(heard, w.Text)
		in := false
		for _, s := range spans {
			in = in || (w.Start >= s.Start-0.3 && w.End <= s.End+0.3)
		}
		if !in || w.End < w.Start {
			t.Errorf("word %+v is outside every sentence %v", w, spans)
		}
	}
	wer := speechtest.WER(strings.Fields(normalise(strings.Join(sentences, " "))), heard)
	t.Logf("heard %q: WER %.1f%%, %.2fs for %.1fs of audio (%.2fx real time)", strings.Join(heard, " "), wer*100, took.Seconds(), audio, took.Seconds()/audio)
	if wer >= 0.2 {
		t.Errorf("WER %.1f%% >= 20%%", wer*100)
	}
}

func TestChunkedRecognitionKeepsTimes(t *testing.T) {
	toolexectest.RequireTools(t, append(speechtest.Tools, PocketsphinxTool)...)
	dir := t.TempDir()
	src, spans := speechtest.Speech(t, dir, sentences, 1.0)
	raw := filepath.Join(dir, "audio.raw")
	if err := run(t.Context(), "raw", "ffmpeg", []string{"-nostdin", "-loglevel", "error", "-i", src, "-f", "s16le", "-ac", "1", "-ar", "16000", raw}, nil, nil); err != nil {
		t.Fatal(err)
	}
	// One chunk per sentence, cut in the pauses, recognised two at a time.
	var chunks []Span
	for i, s := range spans {
		chunks = append(chunks, Span{s.Start - 0.5, s.End + 0.5})
		if i > 0 {
			chunks[i].Start = chunks[i-1].End
		}
	}
	words, err := (&Pocketsphinx{Workers: 2}).recogniseChunks(t.Context(), raw, dir, chunks, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range spans {
		var got []string
		for _, w := range words {
			if w.Start >= s.Start-0.3 && w.End <= s.End+0.3 {
				got = append(got, w.Text)
			}
		}
		if wer := speechtest.WER(strings.Fields(normalise(sentences[i])), got); wer >= 0.34 {
			t.Errorf("sentence %d: heard %q, WER %.0f%%", i, got, wer*100)
		}
	}
}

func normalise(s string) string {
	return strings.ToLower(strings.Map(func(r rune) rune {
		if strings.ContainsRune(".,!?", r) {
			return -1
		}
		return r
	}, s))
}

func TestWERCounts(t *testing.T) {
	for _, tc := range []struct {
		ref, heard string
		want       float64
	}{
		{"a b c d", "a b c d", 0},
		{"a b c d", "a x c d", 0.25},
		{"a b c d", "a c d", 0.25},
		{"a b c d", "a b c d e", 0.25},
		{"", "", 0},
		{"a b", "", 1},
	} {
		if got := speechtest.WER(strings.Fields(tc.ref), strings.Fields(tc.heard)); got != tc.want {
			t.Errorf("speechtest.WER(%q, %q) = %g, want %g", tc.ref, tc.heard, got, tc.want)
		}
	}
}

// TestCommandWorksInTheJobsDirectory: the recogniser's files go in a
// directory beside the wav (the job's DATA/tmp/{id}, swept at start), not
// in the system's temporary directory, and are gone when it returns.
func TestCommandWorksInTheJobsDirectory(t *testing.T) {
	job := filepath.Join(t.TempDir(), "tmp", "prj_1")
	if err := os.MkdirAll(job, 0o700); err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(job, "transcript.wav")
	if err := os.WriteFile(wav, []byte("RIFF"), 0o600); err != nil {
		t.Fatal(err)
	}
	seen := filepath.Join(t.TempDir(), "output-path")
	c, err := NewCommand(`test -s {input} && printf %s {output} > ` + shellQuote(seen) + ` && printf '{"words":[]}' > {output}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Transcribe(t.Context(), wav, "en"); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Dir(filepath.Dir(string(out))); got != job {
		t.Errorf("the recogniser wrote in %s, want a directory in the job's %s", filepath.Dir(string(out)), job)
	}
	if left, _ := filepath.Glob(filepath.Join(job, "clipperd-asr-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
