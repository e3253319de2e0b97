package media

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func TestHookASS(t *testing.T) {
	t.Parallel()
	doc := hookASS(Hook{Text: "  the {big}\nreveal  ", Font: "Lato", Color: "#FFFF00", BoxColor: "#102030"}, 1080, 1920)
	for _, want := range []string{
		"Style: Hook,Lato,125,&H0000FFFF&,&H0000FFFF&,&H20302010&,&H80000000,-1,0,0,0,100,100,0,0,3,31,0,8,90,90,268,1\n",
		"Dialogue: 1,0:00:00.00,0:00:02.50,Hook,,0,0,0,,{\\fad(120,250)}the big reveal\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("missing %q in\n%s", want, doc)
		}
	}
	long := strings.Repeat("word ", 20)
	if got := HookText(long); len([]rune(got)) > maxHookRunes+1 || !strings.HasSuffix(got, "word…") {
		t.Errorf("HookText(long) = %q", got)
	}
}

// The hook's headline reads by OCR in the clip's first 2.5 s, on a busy picture, and is
// gone after: the frame at 2.8 s is the plain render's where the headline was.
func TestRenderClipHook(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "tesseract")
	requireFFmpeg(t)
	src := backgroundSource(t, "testsrc2")
	dir := t.TempDir()
	render := func(name string, hk *Hook) string {
		exp, pre := filepath.Join(dir, name+".mp4"), filepath.Join(dir, name+".preview.mp4")
		if _, err := renderFast(context.Background(), src, Highlight{Start: 0, End: 3, CenterX: 0.5}, exp, pre,
			RenderOptions{Aspect: "portrait", Layout: LayoutCenter, PreviewHeight: 240, Hook: hk}); err != nil {
			t.Fatal(err)
		}
		return exp
	}
	plain := render("plain", nil)
	hooked := render("hook", &Hook{Text: "Seven garden secrets", Font: "Liberation Sans", BoxColor: "#203040"})
	for _, at := range []float64{0.5, 1.5, 2.2} {
		text := ocrDrawn(t, hooked, plain, at)
		t.Logf("%.1fs: OCR %q", at, text)
		for _, w := range []string{"SEVEN", "GARDEN", "SECRETS"} {
			if !strings.Contains(text, w) {
				t.Errorf("at %.1fs OCR read %q, not %q", at, text, w)
			}
		}
	}
	got, w, h := grayFrameAt(t, hooked, 2.8)
	ref, _, _ := grayFrameAt(t, plain, 2.8)
	changed := 0
	for i := range got {
		if absDiff(got[i], ref[i]) > 24 {
			changed++
		}
	}
	t.Logf("at 2.8s %d of %d pixels differ from the plain render", changed, w*h)
	if changed > w*h/1000 {
		t.Errorf("at 2.8s %d pixels still differ: the hook must be gone after 2.5 s", changed)
	}
}
