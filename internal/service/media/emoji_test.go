package media

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestEmojiFontPNG(t *testing.T) {
	t.Parallel()
	f, err := emojiFont()
	if err != nil {
		t.Fatal(err)
	}
	for word, r := range EmojiTable {
		png, err := f.PNG(r)
		if err != nil || len(png) < 100 {
			t.Errorf("%s %U: %d bytes, %v", word, r, len(png), err)
		}
	}
	if _, err := f.PNG('A'); err == nil {
		t.Error("a letter has no colour glyph, want an error")
	}
}

func TestEmojiSpans(t *testing.T) {
	t.Parallel()
	words := []CaptionWord{{"The", 0, 0.2}, {"garden's", 0.2, 0.4}, {"WATER!", 0.5, 0.9}, {"flowers", 1.5, 2.5}, {"bus", 3, 3.2}}
	got := fmt.Sprint(emojiSpans(words))
	want := fmt.Sprint([]emojiSpan{{0x1F331, 0.2, 0.5}, {0x1F4A7, 0.5, 1.1}, {0x1F338, 1.5, 2.5}})
	if got != want {
		t.Errorf("spans %s, want %s", got, want)
	}
	if s := emojiSpans([]CaptionWord{{"plain", 0, 1}, {"words", 1, 2}}); s != nil {
		t.Errorf("no table word: %v", s)
	}
	x, y, w, h := emojiBox(Emoji{Rect: &[4]float64{10, 20, 30, 10}}, 1000, 2000)
	if x != 150 || y != 400 || w != 200 || h != 200 {
		t.Errorf("rect box %d,%d %dx%d", x, y, w, h)
	}
}

// colourfulIn counts the saturated pixels (an emoji's colours, not grey text or a grey
// picture) in the box of the frame at second at of clip.
func colourfulIn(t *testing.T, clip string, at float64, x, y, w, h int) int {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-ss", fmt.Sprint(at), "-i", clip, "-frames:v", "1",
		"-vf", fmt.Sprintf("crop=%d:%d:%d:%d", w, h, x, y), "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1").Output()
	if err != nil || len(out) != w*h*3 {
		t.Fatalf("decode %s at %gs: %v (%d bytes)", clip, at, err, len(out))
	}
	n := 0
	for i := 0; i < len(out); i += 3 {
		r, g, b := int(out[i]), int(out[i+1]), int(out[i+2])
		if max(r, g, b)-min(r, g, b) > 60 {
			n++
		}
	}
	return n
}

// A clip whose words include table words shows the emoji's colours at its place while the
// word is spoken, and not before; a clip without table words shows none.
func TestRenderClipEmoji(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	src := backgroundSource(t, "black")
	dir := t.TempDir()
	rect := &[4]float64{30, 10, 40, 20} // x 324..756, y 192..576 of 1080x1920: a 384 px square
	x, y, w, h := emojiBox(Emoji{Rect: rect}, 1080, 1920)
	render := func(name string, words ...string) string {
		var cw []CaptionWord
		for i, wd := range words {
			cw = append(cw, CaptionWord{wd, 0.2 + 0.7*float64(i), 0.8 + 0.7*float64(i)})
		}
		exp, pre := filepath.Join(dir, name+".mp4"), filepath.Join(dir, name+".preview.mp4")
		opts := RenderOptions{Aspect: "portrait", Layout: LayoutCenter, PreviewHeight: 240, Emoji: &Emoji{Words: cw, Rect: rect}}
		if _, err := renderFast(context.Background(), src, Highlight{Start: 0, End: 2.4, CenterX: 0.5}, exp, pre, opts); err != nil {
			t.Fatal(err)
		}
		return exp
	}
	// "the" 0.2-0.8, "garden" 0.9-1.5, "grows" 1.6-2.2
	with := render("with", "the", "garden", "grows")
	without := render("without", "the", "plan", "works")
	before := colourfulIn(t, with, 0.5, x, y, w, h)
	during := colourfulIn(t, with, 1.2, x, y, w, h)
	none := colourfulIn(t, without, 1.2, x, y, w, h)
	outside := colourfulIn(t, with, 1.2, 0, 1200, 1080, 600)
	t.Logf("colourful pixels in the %dx%d box: %d before the word, %d while 'garden' is spoken, %d in the clip without table words; %d outside the box",
		w, h, before, during, none, outside)
	if during < w*h/10 {
		t.Errorf("while 'garden' is spoken only %d colourful pixels of %d in the box: no emoji drawn", during, w*h)
	}
	if before != 0 || none != 0 || outside != 0 {
		t.Errorf("colour where no emoji belongs: before %d, without table words %d, outside the box %d", before, none, outside)
	}
}
