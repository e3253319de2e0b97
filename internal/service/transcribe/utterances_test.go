package transcribe

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/realmedia"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// part is a stretch of test audio: speech at -20 dB or a pause at -70 dB.
type part struct {
	sec    float64
	speech bool
}

func speech(sec float64) part { return part{sec, true} }
func pause(sec float64) part  { return part{sec, false} }

// levels builds the frame levels of the parts.
func levels(parts ...part) []float64 {
	var out []float64
	for _, p := range parts {
		l := -70.0
		if p.speech {
			l = -20
		}
		for range int(math.Round(p.sec / frameSec)) {
			out = append(out, l)
		}
	}
	return out
}

func TestUtterances(t *testing.T) {
	for _, tc := range []struct {
		name   string
		levels []float64
		want   []Span
	}{
		{"silence has none", levels(pause(5.0)), nil},
		{"two sentences split at the pause, padded into it",
			levels(pause(1.0), speech(3.0), pause(1.0), speech(4.0), pause(1.0)),
			[]Span{{0.85, 4.15}, {4.85, 9.15}}},
		{"a short utterance joins its nearer neighbour",
			levels(pause(0.5), speech(3.0), pause(0.3), speech(1.0), pause(2.0), speech(3.0), pause(0.5)),
			[]Span{{0.35, 4.95}, {6.65, 9.95}}},
		{"a gap under the pause length is not a pause",
			levels(pause(0.5), speech(2.0), pause(0.2), speech(2.0), pause(0.5)),
			[]Span{{0.35, 4.85}}},
		{"a click is not speech", levels(pause(1.0), speech(0.05), pause(1.0), speech(3.0), pause(1.0)), []Span{{1.9, 5.2}}},
	} {
		got := Utterances(tc.levels)
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i].Start-tc.want[i].Start) > 0.011 || math.Abs(got[i].End-tc.want[i].End) > 0.011 {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

// A monologue without pauses is cut into utterances of at most uttMaxSec at
// its quietest moments, never overlapping, covering the speech.
func TestUtterancesCutsLongSpeech(t *testing.T) {
	l := levels(pause(0.5), speech(65.0), pause(0.5))
	for i := 1200; i < 1210; i++ { // a dip at 12 s, over the pause level but the quietest
		l[i] = -35
	}
	got := Utterances(l)
	if len(got) < 4 {
		t.Fatalf("65 s of speech in %d utterances: %v", len(got), got)
	}
	if got[0].End < 12 || got[0].End > 12.2 {
		t.Errorf("first cut at %.2f s, want at the dip at 12 s", got[0].End)
	}
	for i, u := range got {
		if u.End-u.Start > uttMaxSec+2*uttPadSec || u.End-u.Start < uttMinSec {
			t.Errorf("utterance %d: %v", i, u)
		}
		if i > 0 && u.Start < got[i-1].End {
			t.Errorf("utterance %d %v overlaps %v", i, u, got[i-1])
		}
	}
	if got[0].Start > 0.5 || got[len(got)-1].End < 65.5 {
		t.Errorf("speech 0.5–65.5 s not covered: %v", got)
	}
}

// The pause level follows the recording's noise floor: loud speech over a
// floor at -33 to -29 dB (radio; a fixed -35 dB threshold finds no pause)
// still has its pause found.
func TestUtterancesOnANoisyFloor(t *testing.T) {
	l := levels(pause(1.0), speech(3.0), pause(1.0), speech(3.0), pause(1.0))
	for i := range l {
		if l[i] < -60 {
			l[i] = -33 + float64(i%5) // a noisy floor
		} else {
			l[i] = -10
		}
	}
	if got := Utterances(l); len(got) != 2 {
		t.Errorf("got %v, want two utterances", got)
	}
}

func TestParseCTM(t *testing.T) {
	out := `u00001 1 0.29 0.39 and 0.975
u00001 1 0.69 0.28 read(2) 0.261
u00000 1 0.10 0.20 hello 1.5
u00001 1 1.00 0.10 <sil> 1
u00009 1 1.00 0.10 lost 1
garbage line
`
	got := ParseCTM(out, map[string]float64{"u00000": 0, "u00001": 10})
	want := []Word{{"hello", 0.1, 0.3, 1}, {"and", 10.29, 10.68, 0.975}, {"read", 10.69, 10.97, 0.261}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// The 8 kHz detector on the real-media set: codec2's and linphone's 8 kHz
// recordings resampled to 16 kHz are narrowband; jfk.wav (a 1961
// broadcast, dull above 5 kHz) and linphone's 16 kHz prompt are not.
func TestNarrowbandOnRealRecordings(t *testing.T) {
	toolexectest.RequireTools(t, "ffmpeg")
	for file, want := range map[string]bool{
		"speech/jfk.wav":            false,
		"speech/hello16000.wav":     false,
		"speech/hello8000.wav":      true,
		"speech/codec2/hts1a.wav":   true,
		"speech/codec2/ve9qrp.wav":  true,
		"speech/codec2/vk5qi.wav":   true,
		"speech/codec2/forig.wav":   true,
		"speech/codec2/big_dog.wav": true,
	} {
		wav := filepath.Join(t.TempDir(), "a.wav")
		if err := ExtractWAV(t.Context(), realmedia.Path(t, file), 0, 30, wav); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(wav)
		if err != nil {
			t.Fatal(err)
		}
		a, err := analyse(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if a.narrow != want {
			t.Errorf("%s: narrowband %v, want %v", file, a.narrow, want)
		}
	}
}

// jfkText is jfk.wav's sentence (whisper.cpp's README).
const jfkText = "and so my fellow americans ask not what your country can do for you ask what you can do for your country"

// The recogniser on a real voice: jfk.wav as it is (16 kHz) and resampled
// to 8 kHz. Before (pocketsphinx_continuous with its defaults) the word
// error rates were 0.55 and 0.95; measured now 0.18 and 0.45 (4 and 10 of
// 22 words). The thresholds leave a margin of three words either way.
func TestPocketsphinxOnARealVoice(t *testing.T) {
	toolexectest.RequireTools(t, "ffmpeg", PocketsphinxBatchTool)
	src := realmedia.Path(t, "speech/jfk.wav")
	dir := t.TempDir()
	narrow := filepath.Join(dir, "jfk8k.wav")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-i", src, "-ar", "8000", narrow).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	for _, tc := range []struct {
		name, src string
		maxWER    float64
	}{{"16 kHz", src, 0.32}, {"8 kHz", narrow, 0.59}} {
		wav := filepath.Join(dir, "in.wav")
		if err := ExtractWAV(t.Context(), tc.src, 0, 0, wav); err != nil {
			t.Fatal(err)
		}
		words, err := (&Pocketsphinx{}).Transcribe(t.Context(), wav, "en")
		if err != nil {
			t.Fatal(err)
		}
		var heard []string
		for i, w := range words {
			heard = append(heard, w.Text)
			if w.End < w.Start || w.Start < 0 || w.End > 11.1 || i > 0 && w.Start < words[i-1].Start {
				t.Errorf("%s: word %+v out of time order or the audio", tc.name, w)
			}
		}
		wer := speechtest.WER(strings.Fields(jfkText), heard)
		t.Logf("%s: heard %q: WER %.2f", tc.name, strings.Join(heard, " "), wer)
		if wer > tc.maxWER {
			t.Errorf("%s: WER %.2f > %.2f", tc.name, wer, tc.maxWER)
		}
	}
}

// BiasLanguageModel raises the hint words the model knows, up to the cap,
// and nothing else: every other byte of the model is the same.
func TestBiasLanguageModel(t *testing.T) {
	toolexectest.RequireTools(t, PocketsphinxTool)
	src := filepath.Join(ModelDir, "en-us.lm.bin")
	if _, err := os.Stat(src); err != nil {
		t.Fatal("pocketsphinx is installed without its en-us language model (pocketsphinx-en-us):", err)
	}
	dst := filepath.Join(t.TempDir(), "biased.lm.bin")
	raised, err := BiasLanguageModel(src, dst, []string{"Dashwood", "kubernetesx", "the", "dashwood", "prudently"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"dashwood", "prudently"}; !reflect.DeepEqual(raised, want) {
		t.Errorf("raised %v, want %v (unknown words and words over the cap are left)", raised, want)
	}
	before, _ := os.ReadFile(src)
	after, _ := os.ReadFile(dst)
	at, vocab, err := trieUnigrams(before)
	if err != nil {
		t.Fatal(err)
	}
	prob := func(data []byte, word string) float64 {
		for i, w := range vocab {
			if w == word {
				return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[at+12*i:]))) * math.Log10(logBase)
			}
		}
		t.Fatalf("%s not in the model", word)
		return 0
	}
	if b, a := prob(before, "dashwood"), prob(after, "dashwood"); math.Abs(a-(b+3)) > 0.01 {
		t.Errorf("dashwood: log10 p %.2f -> %.2f, want +3", b, a)
	}
	if b, a := prob(before, "the"), prob(after, "the"); a != b {
		t.Errorf("the: %.2f -> %.2f, want unchanged (over the cap)", b, a)
	}
	diff := 0
	for i := range before {
		if before[i] != after[i] {
			diff++
		}
	}
	if len(before) != len(after) || diff == 0 || diff > 8 {
		t.Errorf("%d bytes differ (sizes %d, %d): want only the two words' probabilities", diff, len(before), len(after))
	}
	if _, _, err := trieUnigrams([]byte("ARPA text")); err == nil {
		t.Error("a non-trie file was read")
	}
}

func TestBiasWords(t *testing.T) {
	got := BiasWords("JFK's inaugural address", "the Kennedy years, 1961", "Address")
	want := []string{"jfk's", "inaugural", "address", "kennedy", "years"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Hints the speech has are heard where the unbiased model hears other
// words; hints it does not have change nothing: festival says a rare name.
func TestPocketsphinxHearsHints(t *testing.T) {
	toolexectest.RequireTools(t, append(speechtest.Tools, PocketsphinxBatchTool)...)
	dir := t.TempDir()
	said := []string{"Mister Dashwood had then leisure to consider how much there might be prudently in his power."}
	src, _ := speechtest.Speech(t, dir, said, 0.5)
	ref := strings.Fields(normalise(said[0]))
	wer := func(hints []string) (float64, string) {
		words, err := (&Pocketsphinx{}).TranscribeHinted(t.Context(), src, "en", hints)
		if err != nil {
			t.Fatal(err)
		}
		var heard []string
		for _, w := range words {
			heard = append(heard, w.Text)
		}
		return speechtest.WER(ref, heard), strings.Join(heard, " ")
	}
	plain, plainText := wer(nil)
	hinted, hintedText := wer(BiasWords("Sense and Sensibility: the Dashwoods, Mister Dashwood"))
	other, otherText := wer(BiasWords("JFK inaugural address, Kennedy, Americans"))
	t.Logf("no hints %.2f %q; hints %.2f %q; other hints %.2f %q", plain, plainText, hinted, hintedText, other, otherText)
	if !strings.Contains(hintedText, "dashwood") {
		t.Errorf("with the hint, dashwood not heard: %q", hintedText)
	}
	if hinted > plain {
		t.Errorf("hints made it worse: WER %.2f > %.2f", hinted, plain)
	}
	if other != plain {
		t.Errorf("another project's hints changed the words: %q, without %q", otherText, plainText)
	}
}
