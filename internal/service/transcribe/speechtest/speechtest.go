// Package speechtest makes test audio and video of known English sentences
// spoken by festival's HTS voice, the speech pocketsphinx recognises well.
package speechtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// Tools are the programs Speech needs.
var Tools = []string{"text2wave", "ffmpeg", "ffprobe"}

// Voice is the festival voice spoken.
const Voice = "(voice_cmu_us_slt_arctic_hts)"

// Span is where a sentence is spoken, in seconds.
type Span struct{ Start, End float64 }

// Speech writes the sentences, spoken one after another with pause seconds
// of silence before each and after the last, as a 16 kHz mono WAV at
// dir/speech.wav, and returns its path and where each sentence is spoken.
func Speech(tb testing.TB, dir string, sentences []string, pause float64) (string, []Span) {
	tb.Helper()
	toolexectest.RequireTools(tb, Tools...)
	var list strings.Builder
	var spans []Span
	at := 0.0
	silence := filepath.Join(dir, "pause.wav")
	ffmpeg(tb, "-f", "lavfi", "-i", fmt.Sprintf("anullsrc=r=16000:cl=mono:d=%g", pause), "-c:a", "pcm_s16le", silence)
	for i, s := range sentences {
		txt, raw, wav := filepath.Join(dir, fmt.Sprintf("s%d.txt", i)), filepath.Join(dir, fmt.Sprintf("s%d.raw.wav", i)), filepath.Join(dir, fmt.Sprintf("s%d.wav", i))
		if err := os.WriteFile(txt, []byte(s+"\n"), 0o600); err != nil {
			tb.Fatal(err)
		}
		if out, err := exec.Command("text2wave", "-eval", Voice, txt, "-o", raw).CombinedOutput(); err != nil {
			tb.Fatalf("text2wave: %v: %s", err, out)
		}
		ffmpeg(tb, "-i", raw, "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", wav)
		d := duration(tb, wav)
		at += pause
		spans = append(spans, Span{at, at + d})
		at += d
		fmt.Fprintf(&list, "file '%s'\nfile '%s'\n", silence, wav)
	}
	fmt.Fprintf(&list, "file '%s'\n", silence)
	listPath := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(listPath, []byte(list.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(dir, "speech.wav")
	ffmpeg(tb, "-f", "concat", "-safe", "0", "-i", listPath, "-c:a", "pcm_s16le", out)
	return out, spans
}

// Video writes the sentences as Speech does over a moving test picture, an
// MP4 at dir/speech.mp4.
func Video(tb testing.TB, dir string, sentences []string, pause float64) (string, []Span) {
	tb.Helper()
	wav, spans := Speech(tb, dir, sentences, pause)
	out := filepath.Join(dir, "speech.mp4")
	ffmpeg(tb, "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-i", wav, "-shortest",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", out)
	return out, spans
}

func ffmpeg(tb testing.TB, args ...string) {
	tb.Helper()
	args = append([]string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y"}, args...)
	if out, err := exec.CommandContext(context.Background(), "ffmpeg", args...).CombinedOutput(); err != nil {
		tb.Fatalf("ffmpeg %v: %v: %s", args, err, out)
	}
}

func duration(tb testing.TB, path string) float64 {
	tb.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path).Output()
	if err != nil {
		tb.Fatalf("ffprobe %s: %v", path, err)
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		tb.Fatalf("ffprobe %s: %q", path, out)
	}
	return d
}

// WER is the word error rate of heard against ref: the word-level edit
// distance (substitutions, insertions, deletions) over len(ref), compared
// case-insensitively.
func WER(ref, heard []string) float64 {
	if len(ref) == 0 {
		if len(heard) == 0 {
			return 0
		}
		return 1
	}
	prev := make([]int, len(heard)+1)
	cur := make([]int, len(heard)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ref); i++ {
		cur[0] = i
		for j := 1; j <= len(heard); j++ {
			sub := prev[j-1]
			if !strings.EqualFold(ref[i-1], heard[j-1]) {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(heard)]) / float64(len(ref))
}

// TimedWord is a word festival spoke and when, in seconds of its audio.
type TimedWord struct {
	Text       string
	Start, End float64
}

// Timed writes sentence spoken by Voice as a 16 kHz mono WAV at
// dir/timed.wav and returns its path and festival's own times of its words
// (each word's first segment's start to its last's end).
func Timed(tb testing.TB, dir, sentence string) (string, []TimedWord) {
	tb.Helper()
	toolexectest.RequireTools(tb, "festival", "ffmpeg")
	raw := filepath.Join(dir, "timed.festival.wav")
	// Utterance is a special form: (eval (list ...)) passes it the text.
	script := fmt.Sprintf(`%s
(set! utt (utt.synth (eval (list 'Utterance 'Text %q))))
(utt.save.wave utt %q 'riff)
(mapcar (lambda (w) (format t "W %%s %%s %%s\n" (item.name w) (item.feat w "word_start") (item.feat w "word_end")))
        (utt.relation.items utt 'Word))
`, Voice, sentence, raw)
	scm := filepath.Join(dir, "timed.scm")
	if err := os.WriteFile(scm, []byte(script), 0o600); err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command("festival", "-b", scm).Output()
	if err != nil {
		tb.Fatalf("festival: %v", err)
	}
	var words []TimedWord
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || f[0] != "W" {
			continue
		}
		start, err1 := strconv.ParseFloat(f[2], 64)
		end, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			tb.Fatalf("festival word times: %q", line)
		}
		words = append(words, TimedWord{f[1], start, end})
	}
	if len(words) == 0 {
		tb.Fatalf("festival gave no word times: %s", out)
	}
	wav := filepath.Join(dir, "timed.wav")
	ffmpeg(tb, "-i", raw, "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", wav)
	return wav, words
}
