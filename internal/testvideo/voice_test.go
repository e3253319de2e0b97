package testvideo

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func requireFestival(t *testing.T) {
	t.Helper()
	toolexectest.RequireTools(t, "festival")
	if !FestivalAvailable() {
		if toolexectest.InCI() {
			t.Fatal("festival's voice cmu_us_slt_arctic_hts is not installed (scripts/ensure-tools.sh festival installs it)")
		}
		t.Skip("festival's voice cmu_us_slt_arctic_hts is not installed")
	}
}

// The festival voice speaks by default where installed, and a recogniser understands it: the
// evidence that transcripts of test videos can be checked against their layout.
func TestFestivalVoiceIsUsedAndRecognised(t *testing.T) {
	requireTools(t)
	requireFestival(t)
	toolexectest.RequireTools(t, "pocketsphinx_continuous")
	dir := t.TempDir()
	path := filepath.Join(dir, "a.mp4")
	layout, err := GenerateWithLayout(context.Background(), path, Options{Duration: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if layout.Voice != VoiceFestival {
		t.Fatalf("layout voice %q, want %q where festival is installed", layout.Voice, VoiceFestival)
	}
	if len(layout.Speech) < 3 {
		t.Fatalf("only %d sentences in 30 s", len(layout.Speech))
	}
	edits, total := 0, 0
	for i, sp := range layout.Speech {
		wav := filepath.Join(dir, "s"+strconv.Itoa(i)+".wav")
		// The sentence with a little of the pauses around it, as the recogniser wants it: 16 kHz mono.
		out, err := exec.Command("ffmpeg", "-hide_banner", "-loglevel", "error", "-ss", strconv.FormatFloat(sp.Start-0.3, 'f', 3, 64),
			"-t", strconv.FormatFloat(sp.End-sp.Start+0.6, 'f', 3, 64), "-i", path, "-vn", "-ac", "1", "-ar", "16000", wav).CombinedOutput()
		if err != nil {
			t.Fatalf("extract sentence %d: %v: %s", i, err, out)
		}
		ref, hyp := words(sp.Text), recognise(t, wav)
		e := wordEdits(ref, hyp)
		t.Logf("%s %q: heard %q, %d/%d words wrong", sp.Style, sp.Text, strings.Join(hyp, " "), e, len(ref))
		edits += e
		total += len(ref)
	}
	if wer := float64(edits) / float64(total); wer >= 0.2 {
		t.Errorf("word error rate %.1f%% (%d/%d), want under 20%%", 100*wer, edits, total)
	} else {
		t.Logf("word error rate %.1f%% (%d/%d)", 100*wer, edits, total)
	}
}

// recognise runs pocketsphinx on a 16 kHz mono WAV and returns the words it heard.
func recognise(t *testing.T, wav string) []string {
	t.Helper()
	out, err := exec.Command("pocketsphinx_continuous", "-infile", wav, "-time", "yes", "-logfn", "/dev/null").Output()
	if err != nil {
		t.Fatalf("pocketsphinx_continuous: %v", err)
	}
	// With -time yes each word is a line "word start end confidence"; alternative pronunciations
	// are marked word(2), and <s>, </s>, <sil> and [NOISE] are not words.
	var heard []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 4 || strings.ContainsAny(f[0], "<[") {
			continue
		}
		if _, err := strconv.ParseFloat(f[1], 64); err != nil {
			continue
		}
		w, _, _ := strings.Cut(f[0], "(")
		heard = append(heard, strings.ToLower(w))
	}
	return heard
}

// words splits a sentence into lowercased words without punctuation.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// wordEdits is the word-level Levenshtein distance: substitutions, insertions and deletions
// turning ref into hyp.
func wordEdits(ref, hyp []string) int {
	prev := make([]int, len(hyp)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range ref {
		cur := make([]int, len(hyp)+1)
		cur[0] = i + 1
		for j := range hyp {
			sub := prev[j]
			if ref[i] != hyp[j] {
				sub++
			}
			cur[j+1] = min(sub, prev[j+1]+1, cur[j]+1)
		}
		prev = cur
	}
	return prev[len(hyp)]
}

func TestWordEdits(t *testing.T) {
	for _, c := range []struct {
		ref, hyp string
		want     int
	}{
		{"the cat sat", "the cat sat", 0},
		{"the cat sat", "the bat sat", 1},
		{"the cat sat", "the sat", 1},
		{"the cat sat", "the cat sat down", 1},
		{"", "a b", 2},
		{"a b c", "", 3},
	} {
		if got := wordEdits(words(c.ref), words(c.hyp)); got != c.want {
			t.Errorf("wordEdits(%q, %q) = %d, want %d", c.ref, c.hyp, got, c.want)
		}
	}
	if got := words("Honestly, this changed everything for our team!"); strings.Join(got, " ") != "honestly this changed everything for our team" {
		t.Errorf("words: %q", got)
	}
}
