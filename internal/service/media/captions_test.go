package media

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func TestASS(t *testing.T) {
	t.Parallel()
	line := CaptionLine{Start: 0.5, End: 2, Words: []CaptionWord{{"hello", 0.6, 1}, {"{big}", 1.1, 1.5}, {`w\orld`, 1.6, 1.9}}}
	cases := []struct {
		name  string
		style CaptionStyle
		want  []string
		not   []string
	}{
		{"defaults", CaptionStyle{}, []string{
			"PlayResX: 1080\nPlayResY: 1920\n",
			"Style: Caption,DejaVu Sans,86,&H00FFFFFF&,&H00A0F3FF&,&H00000000&,&H20000000,0,0,0,0,100,100,0,0,4,6.88,0,2,54,54,288,1\n",
			"Dialogue: 0,0:00:00.50,0:00:02.00,Caption,,0,0,0,,hello big world\n",
		}, []string{`\1c`}},
		{"styled", CaptionStyle{Font: "Noto, Sans", SizePct: 10, Color: "#00ff00", Outline: "123456", OutlinePct: -1, Shadow: true, Bold: true, Uppercase: true}, []string{
			"Style: Caption,Noto  Sans,192,&H00A0FFA0&,&H00A0F3FF&,&H00563412&,&H20000000,-1,0,0,0,100,100,0,0,4,0,12,2,",
			",,HELLO BIG WORLD\n",
		}, nil},
		{"highlight", CaptionStyle{HighlightWord: true, Highlight: "#ff0000", Color: "bad"}, []string{
			`Dialogue: 0,0:00:00.50,0:00:01.10,Caption,,0,0,0,,{\1c&H00A0A0FF&}hello{\1c&H00FFFFFF&} big world` + "\n",
			`Dialogue: 0,0:00:01.10,0:00:01.60,Caption,,0,0,0,,hello {\1c&H00A0A0FF&}big{\1c&H00FFFFFF&} world` + "\n",
			`Dialogue: 0,0:00:01.60,0:00:02.00,Caption,,0,0,0,,hello big {\1c&H00A0A0FF&}world{\1c&H00FFFFFF&}` + "\n",
		}, nil},
		{"pop", CaptionStyle{PopWord: true}, []string{
			`Dialogue: 0,0:00:00.50,0:00:01.10,Caption,,0,0,0,,{\fscx125\fscy125\t(0,120,\fscx100\fscy100)}hello{\fscx100\fscy100} big world` + "\n",
			`Dialogue: 0,0:00:01.60,0:00:02.00,Caption,,0,0,0,,hello big {\fscx125\fscy125\t(0,120,\fscx100\fscy100)}world{\fscx100\fscy100}` + "\n",
		}, []string{`\1c`}},
		{"pop and highlight", CaptionStyle{PopWord: true, HighlightWord: true}, []string{
			`{\1c&H00A0F3FF&\fscx125\fscy125\t(0,120,\fscx100\fscy100)}big{\1c&H00FFFFFF&\fscx100\fscy100}`,
		}, nil},
	}
	cases = append(cases,
		struct {
			name  string
			style CaptionStyle
			want  []string
			not   []string
		}{"box look", CaptionStyle{Look: "Gameplay", BoxColor: "#102030"}, []string{",&H30302010&,&H20000000,0,0,0,0,100,100,0,0,3,22,0,"}, nil},
		struct {
			name  string
			style CaptionStyle
			want  []string
			not   []string
		}{"karaoke look", CaptionStyle{Look: "karaoke"}, []string{
			`0:00:01.10,0:00:01.60,Caption,,0,0,0,,{\1c&H00A0F3FF&}hello big{\1c&H00FFFFFF&} world` + "\n"}, nil},
		struct {
			name  string
			style CaptionStyle
			want  []string
			not   []string
		}{"one-word look", CaptionStyle{Look: "one_word"}, []string{
			",&H00000000&,&H20000000,0,0,0,0,100,100,0,0,3,", // the box opaque
			`Dialogue: 0,0:00:00.60,0:00:01.10,Caption,,0,0,0,,○\h○\h\hhello\h\h○\h○` + "\n",
			`Dialogue: 0,0:00:01.60,0:00:02.00,Caption,,0,0,0,,○\h○\h\hworld\h\h○\h○` + "\n"}, []string{`\fs`}},
		struct {
			name  string
			style CaptionStyle
			want  []string
			not   []string
		}{"one-word look, the old drawing", CaptionStyle{Look: "one_word", Legacy: true}, []string{
			",&H30000000&,&H20000000,0,0,0,0,100,100,0,0,3,",
			"Dialogue: 0,0:00:00.60,0:00:01.10,Caption,,0,0,0,,hello\n"}, []string{"○"}},
	)
	for _, c := range cases {
		doc := ASS(Captions{Lines: []CaptionLine{line}, Style: c.style}, 1080, 1920)
		for _, w := range c.want {
			if !strings.Contains(doc, w) {
				t.Errorf("%s: missing %q in\n%s", c.name, w, doc)
			}
		}
		for _, n := range c.not {
			if strings.Contains(doc, n) {
				t.Errorf("%s: unexpected %q in\n%s", c.name, n, doc)
			}
		}
	}
	// A long word is drawn smaller to stay on one line with its rings.
	long := CaptionLine{Start: 0, End: 1, Words: []CaptionWord{{"opportunities", 0, 1}}}
	doc := ASS(Captions{Lines: []CaptionLine{long}, Style: CaptionStyle{Look: LookOneWord}}, 1080, 1920)
	if !strings.Contains(doc, `,,{\fs73}○\h○\h\hopportunities\h\h○\h○`+"\n") {
		t.Errorf("one-word look, a long word: want it at \\fs73 between its rings, in\n%s", doc)
	}
	if got := assTime(3725.456); got != "1:02:05.46" {
		t.Errorf("assTime = %q", got)
	}
}

// A captioned frame differs from the uncaptioned one only in the lower part of the frame, and
// OCR reads the spoken words from it.
func TestRenderClipCaptions(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "tesseract")
	dir := t.TempDir()
	src, spans := speechtest.Video(t, dir, []string{"the garden needs water"}, 0.5)
	h := Highlight{Start: spans[0].Start, End: spans[0].End, CenterX: 0.5}
	dur := h.End - h.Start
	words := []CaptionWord{{"the", 0, 0.2}, {"garden", 0.2, 0.7}, {"needs", 0.7, 1}, {"water", 1, dur}}
	capt := &Captions{Lines: []CaptionLine{{Start: 0, End: dur, Words: words}}, Style: CaptionStyle{Uppercase: true, Bold: true, HighlightWord: true}}
	frame := func(name string, c *Captions) ([]byte, int, int) {
		exp, pre := filepath.Join(dir, name+".mp4"), filepath.Join(dir, name+"-p.mp4")
		if _, err := renderFast(context.Background(), src, h, exp, pre, RenderOptions{Aspect: "landscape", Captions: c, PreviewHeight: 240}); err != nil {
			t.Fatal(err)
		}
		return firstFrameGray(t, exp)
	}
	plain, w, hgt := frame("plain", nil)
	capd, _, _ := frame("captioned", capt)
	x0, y0, x1, y1, n := w, hgt, -1, -1, 0
	for y := 0; y < hgt; y++ {
		for x := 0; x < w; x++ {
			if absDiff(plain[y*w+x], capd[y*w+x]) > 24 {
				n++
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	t.Logf("changed pixels: %d (%.2f%% of the frame) in x %d-%d, y %d-%d of %dx%d", n, 100*float64(n)/float64(w*hgt), x0, x1, y0, y1, w, hgt)
	if n < 2000 {
		t.Fatalf("only %d pixels changed: no caption drawn", n)
	}
	if y0 < hgt*6/10 || y1 > hgt*95/100 {
		t.Errorf("changes span rows %d-%d of %d: captions must stay in the lower part of the frame", y0, y1, hgt)
	}
	// OCR the caption band, dark text on light for tesseract.
	px0, px1 := max(0, x0-8), min(w, x1+9)
	band := region(capd, w, px0, y0, px1, y1+1)
	for i, v := range band {
		band[i] = 255 - v
	}
	pgm := filepath.Join(dir, "band.pgm")
	body := append([]byte("P5\n"+itoa(px1-px0)+" "+itoa(y1+1-y0)+"\n255\n"), band...)
	if err := os.WriteFile(pgm, body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("tesseract", pgm, "stdout", "--psm", "7").Output()
	if err != nil {
		t.Fatalf("tesseract: %v", err)
	}
	text := strings.ToUpper(strings.TrimSpace(string(out)))
	t.Logf("OCR: %q", text)
	found := 0
	for _, wd := range []string{"GARDEN", "NEEDS", "WATER"} {
		if strings.Contains(text, wd) {
			found++
		}
	}
	if found == 0 {
		t.Errorf("OCR read %q: none of the spoken words", text)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCaptionPosition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		position string
		style    string // the alignment and margins of the Caption style, 1080x1920
	}{
		{"", ",2,54,54,288,1"},
		{"bottom", ",2,54,54,288,1"},
		{"somewhere", ",2,54,54,288,1"},
		{"top", ",8,54,54,192,1"},
		{"TOP", ",8,54,54,192,1"},
		{"middle", ",5,54,54,0,1"},
		{"center", ",5,54,54,0,1"},
	} {
		doc := ASS(Captions{Style: CaptionStyle{Position: tc.position}}, 1080, 1920)
		line := ""
		for _, l := range strings.Split(doc, "\n") {
			if strings.HasPrefix(l, "Style: Caption,") {
				line = l
			}
		}
		if !strings.HasSuffix(line, tc.style) {
			t.Errorf("position %q: style line %q, want it to end %q", tc.position, line, tc.style)
		}
	}
}
