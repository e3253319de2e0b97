package testvideo

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// The face videos are landscape pictures made from pigo's testdata/sample.jpg
// (a real face, 320x400, in the module cache: nothing is downloaded) over
// plain backgrounds or a testsrc2 "screen", with speech or a silent track.

// FacePos is where a face is, in fractions of the picture: X, Y its centre
// (of the width, of the height), Size its side (of the height): the meaning
// of media.FaceBox.
type FacePos struct{ X, Y, Size float64 }

// FaceTrack is one face of a shot: it moves linearly From its place at the
// shot's start To its place at the shot's end. Speaks: its mouth opens and
// closes through the shot (a dark mouth drawn on and off), the others' stay
// still.
type FaceTrack struct {
	From, To FacePos
	Speaks   bool
	mirrored bool
	scale    float64 // the sample image's height, fraction of the picture's
}

// At is the face's place at source time t of a shot spanning s.
func (f FaceTrack) At(s Span, t float64) FacePos {
	k := 0.0
	if s.End > s.Start {
		k = max(0, min(1, (t-s.Start)/(s.End-s.Start)))
	}
	lerp := func(a, b float64) float64 { return a + (b-a)*k }
	return FacePos{lerp(f.From.X, f.To.X), lerp(f.From.Y, f.To.Y), lerp(f.From.Size, f.To.Size)}
}

// FaceShot is a stretch of a face video between two cuts.
type FaceShot struct {
	Span
	Faces  []FaceTrack // left to right at the shot's start
	Screen bool        // the background is a testsrc2 pattern (a screen recording) instead of a plain colour
	bg     string
}

// FaceLayout is what a face generator put in its video: the truth for tests.
type FaceLayout struct {
	Width, Height int
	Duration      float64
	Shots         []FaceShot      // in order, covering the duration
	Voice         string          // the voice that spoke; "" for a silent track
	Speech        []SpeechSegment // the sentences spoken (none when silent)
}

// Cuts lists the times of the cuts between shots (on frame boundaries).
func (l *FaceLayout) Cuts() []float64 {
	var cuts []float64
	for _, s := range l.Shots[1:] {
		cuts = append(cuts, s.Start)
	}
	return cuts
}

// ShotAt returns the shot that shows source time t.
func (l *FaceLayout) ShotAt(t float64) FaceShot {
	for _, s := range l.Shots {
		if t < s.End {
			return s
		}
	}
	return l.Shots[len(l.Shots)-1]
}

// FacesAt is where the faces are at source time t, left to right at the shot's start.
func (l *FaceLayout) FacesAt(t float64) []FacePos {
	s := l.ShotAt(t)
	out := make([]FacePos, len(s.Faces))
	for i, f := range s.Faces {
		out[i] = f.At(s.Span, t)
	}
	return out
}

// FaceOptions sets a face video's length, size and sound.
type FaceOptions struct {
	Duration      time.Duration // default 6 s
	Width, Height int           // default 1280x720
	Silent        bool          // a silent audio track instead of speech (faster to make)
	Voice         string        // as Options.Voice, when not Silent
}

// Where a face lies in sample.jpg, as pigo finds it there: centre at 48.4%
// of the width and 50% of the height, side 57.5% of the image's height.
const (
	sampleW, sampleH = 320, 400
	sampleFaceX      = 0.484
	sampleFaceY      = 0.5
	sampleFaceSide   = 0.575
)

// Mouth of sample.jpg (fractions of the image): what a speaking face moves.
const (
	mouthX, mouthY = 0.5, 0.71
	mouthW, mouthH = 0.24, 0.06
	// mouthHz: the mouth opens and closes at this rate; not a divisor of any
	// analysis sampling rate, so samples see it in both states.
	mouthHz = 2.3
)

var (
	sampleOnce sync.Once
	samplePath string
	sampleErr  error
)

// SampleFace returns the path of pigo's testdata/sample.jpg in the module
// cache (the module is a dependency of this one, so it is there once built).
func SampleFace() (string, error) {
	sampleOnce.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/esimov/pigo").Output()
		if err != nil {
			sampleErr = fmt.Errorf("testvideo: locate github.com/esimov/pigo with go list -m: %w", err)
			return
		}
		samplePath = filepath.Join(strings.TrimSpace(string(out)), "testdata", "sample.jpg")
		if _, err := os.Stat(samplePath); err != nil {
			sampleErr = fmt.Errorf("testvideo: pigo's sample face: %w", err)
		}
	})
	return samplePath, sampleErr
}

// MovingFace: one shot, one face that moves from the left third (X 1/3) to
// the right third (X 2/3) of the picture over the whole duration.
func MovingFace(ctx context.Context, path string, opts FaceOptions) (*FaceLayout, error) {
	return generateFaces(ctx, path, opts, func(d, w, h float64) []FaceShot {
		f := face(1.0/3, 0.6, false)
		f.To = face(2.0/3, 0.6, false).From
		return []FaceShot{{Span: Span{0, d}, Faces: []FaceTrack{f}, bg: darkColors[0]}}
	})
}

// FaceCut: two shots, the cut at about 45% of the duration (Cuts() says
// where): a still face at the left third on a dark background, then at the
// right third on a light one.
func FaceCut(ctx context.Context, path string, opts FaceOptions) (*FaceLayout, error) {
	return generateFaces(ctx, path, opts, func(d, w, h float64) []FaceShot {
		cut := math.Round(0.45*d*frameRate) / frameRate
		return []FaceShot{
			{Span: Span{0, cut}, Faces: []FaceTrack{face(1.0/3, 0.6, false)}, bg: darkColors[0]},
			{Span: Span{cut, d}, Faces: []FaceTrack{face(2.0/3, 0.6, false)}, bg: lightColors[1]},
		}
	})
}

// TwoFaces: one shot, two still faces side by side (X 0.3 and 0.7, the
// second mirrored); the one at index speaker (0 left, 1 right) moves its
// mouth, -1 neither.
func TwoFaces(ctx context.Context, path string, speaker int, opts FaceOptions) (*FaceLayout, error) {
	if speaker < -1 || speaker > 1 {
		return nil, fmt.Errorf("testvideo: speaker must be -1, 0 or 1, got %d", speaker)
	}
	return generateFaces(ctx, path, opts, func(d, w, h float64) []FaceShot {
		fs := []FaceTrack{face(0.3, 0.6, false), face(0.7, 0.6, true)}
		if speaker >= 0 {
			fs[speaker].Speaks = true
		}
		return []FaceShot{{Span: Span{0, d}, Faces: fs, bg: darkColors[2]}}
	})
}

// ScreenWithFace: one shot of a testsrc2 "screen" with a small face camera
// in its bottom-right corner.
func ScreenWithFace(ctx context.Context, path string, opts FaceOptions) (*FaceLayout, error) {
	return generateFaces(ctx, path, opts, func(d, w, h float64) []FaceShot {
		// The image is 35% of the height, 3% of the height in from the corner.
		const scale, margin = 0.35, 0.03
		imgH := float64(even(int(math.Round(scale * h))))
		imgW := float64(even(int(math.Round(imgH * sampleW / sampleH))))
		f := face(0, scale, false)
		f.From.X = (w - margin*h - imgW*(1-sampleFaceX)) / w
		f.From.Y = (h - margin*h - imgH*(1-sampleFaceY)) / h
		f.To = f.From
		return []FaceShot{{Span: Span{0, d}, Faces: []FaceTrack{f}, Screen: true}}
	})
}

// GroupOfFaces: one shot, n (2-4) still faces in a row, evenly spaced,
// every other one mirrored.
func GroupOfFaces(ctx context.Context, path string, n int, opts FaceOptions) (*FaceLayout, error) {
	if n < 2 || n > 4 {
		return nil, fmt.Errorf("testvideo: a group has 2 to 4 faces, got %d", n)
	}
	// The image's width must fit its slot of the 16:9 width.
	return generateFaces(ctx, path, opts, func(d, w, h float64) []FaceShot {
		scale := min(0.6, 0.92*(w/h/float64(n))*sampleH/sampleW)
		fs := make([]FaceTrack, n)
		for i := range fs {
			fs[i] = face((float64(i)+0.5)/float64(n), scale, i%2 == 1)
		}
		return []FaceShot{{Span: Span{0, d}, Faces: fs, bg: darkColors[3]}}
	})
}

// face is a still face whose image is scale of the picture's height, centred
// on the face at x, halfway down.
func face(x, scale float64, mirrored bool) FaceTrack {
	p := FacePos{X: x, Y: 0.5}
	return FaceTrack{From: p, To: p, mirrored: mirrored, scale: scale}
}

func generateFaces(ctx context.Context, path string, opts FaceOptions, plan func(d, w, h float64) []FaceShot) (*FaceLayout, error) {
	opts, err := faceOptionsWithDefaults(opts)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return nil, fmt.Errorf("testvideo: ffmpeg is required: %w", err)
	}
	img, err := SampleFace()
	if err != nil {
		return nil, err
	}
	layout := planFaceLayout(opts, plan)

	work, err := os.MkdirTemp("", "testvideo-faces-")
	if err != nil {
		return nil, fmt.Errorf("testvideo: temp dir: %w", err)
	}
	defer os.RemoveAll(work)
	audioArgs := []string{"-f", "lavfi", "-i", "anullsrc=r=44100:cl=stereo"}
	if !opts.Silent {
		wav, err := speakForFaces(ctx, work, opts, layout)
		if err != nil {
			return nil, err
		}
		audioArgs = []string{"-i", wav}
	}
	if err := encodeFaceVideo(ctx, path, work, img, layout, audioArgs); err != nil {
		return nil, err
	}
	return layout, nil
}

// faceOptionsWithDefaults fills in the default length (6 s) and size
// (1280x720) and checks the options' ranges.
func faceOptionsWithDefaults(opts FaceOptions) (FaceOptions, error) {
	if opts.Duration == 0 {
		opts.Duration = 6 * time.Second
	}
	if opts.Width == 0 && opts.Height == 0 {
		opts.Width, opts.Height = 1280, 720
	}
	switch {
	case opts.Duration < 2*time.Second || opts.Duration > 10*time.Minute:
		return opts, fmt.Errorf("testvideo: face video Duration must be between 2s and 10m, got %s", opts.Duration)
	case opts.Width < 320 || opts.Height < 180 || opts.Width > 3840 || opts.Height > 2160 || opts.Width%2+opts.Height%2 != 0:
		return opts, fmt.Errorf("testvideo: face video Width and Height must be even, 320x180 to 3840x2160, got %dx%d", opts.Width, opts.Height)
	}
	return opts, nil
}

// planFaceLayout is plan's shots on a timeline of whole frames, with each
// face's size as it will be drawn.
func planFaceLayout(opts FaceOptions, plan func(d, w, h float64) []FaceShot) *FaceLayout {
	d := math.Round(opts.Duration.Seconds()*frameRate) / frameRate
	h := float64(opts.Height)
	layout := &FaceLayout{Width: opts.Width, Height: opts.Height, Duration: d, Shots: plan(d, float64(opts.Width), h)}
	for si := range layout.Shots {
		for fi := range layout.Shots[si].Faces {
			f := &layout.Shots[si].Faces[fi]
			// The truth is what is drawn: the image's height is rounded to even pixels.
			f.From.Size = float64(imgHeight(f.scale, opts.Height)) * sampleFaceSide / h
			f.To.Size = f.From.Size
		}
	}
	return layout
}

// speakForFaces writes the face video's speech to work/speech.wav (the file
// it returns) and records the voice and its sentences in layout.
func speakForFaces(ctx context.Context, work string, opts FaceOptions, layout *FaceLayout) (string, error) {
	if opts.Voice != "" && opts.Voice != VoiceFestival && opts.Voice != VoiceEspeak {
		return "", fmt.Errorf("testvideo: Voice must be %q, %q or empty, got %q", VoiceFestival, VoiceEspeak, opts.Voice)
	}
	voice, err := resolveVoice(opts.Voice)
	if err != nil {
		return "", err
	}
	speech, pcm, err := planAudio(ctx, work, voice, layout.Duration)
	if err != nil {
		return "", err
	}
	if len(speech.Speech) == 0 {
		return "", fmt.Errorf("testvideo: no sentence fits in %s: a face video with speech needs about 8s", opts.Duration)
	}
	wav := filepath.Join(work, "speech.wav")
	if err := writeWAV(wav, pcm, speechRate); err != nil {
		return "", err
	}
	layout.Voice, layout.Speech = voice, speech.Speech
	return wav, nil
}

// encodeFaceVideo draws layout with the face image img over audioArgs' sound
// into path (removed when ffmpeg fails), bit-exact so a test's video is the
// same on every run.
func encodeFaceVideo(ctx context.Context, path, work, img string, layout *FaceLayout, audioArgs []string) error {
	graphFile := filepath.Join(work, "graph.txt")
	if err := os.WriteFile(graphFile, []byte(faceGraph(layout)), 0o600); err != nil {
		return fmt.Errorf("testvideo: write filter graph: %w", err)
	}
	dur := strconv.FormatFloat(layout.Duration, 'f', 3, 64)
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		"-loop", "1", "-framerate", strconv.Itoa(frameRate), "-t", dur, "-i", toolexec.LocalURL(img)}
	args = append(args, audioArgs...)
	args = append(args, "-filter_complex_script", graphFile, "-map", "[out]", "-map", "1:a",
		"-c:v", "libx264", "-preset", "ultrafast", "-crf", "23", "-g", strconv.Itoa(2*frameRate), "-pix_fmt", "yuv420p",
		"-c:a", "aac", "-aac_coder", "fast", "-b:a", "96k", "-ar", "44100", "-ac", "2",
		"-t", dur, "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact",
		"-movflags", "+faststart", "-f", "mp4", toolexec.LocalURL(path))
	cmd := toolexec.Command(ctx, "ffmpeg", args...)
	var stderr toolexec.Tail
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(path)
		return fmt.Errorf("testvideo: ffmpeg face video: %w: %s", err, stderr.LastLines(8))
	}
	return nil
}

// faceGraph draws the layout on one timeline: the first shot's background,
// each later shot's background switched on at its start, and every face
// overlaid only during its shot, so no stream waits for another.
func faceGraph(l *FaceLayout) string {
	w, h := l.Width, l.Height
	d := strconv.FormatFloat(l.Duration, 'f', 3, 64)
	between := func(s Span) string {
		// Half a frame's margin puts each switch exactly on a frame.
		return fmt.Sprintf("between(t,%.4f,%.4f)", s.Start-0.5/frameRate, s.End-0.5/frameRate)
	}
	var g strings.Builder
	nFaces := 0
	for _, s := range l.Shots {
		nFaces += len(s.Faces)
	}
	fmt.Fprintf(&g, "[0:v]format=rgb24,split=%d", nFaces)
	for i := range nFaces {
		fmt.Fprintf(&g, "[img%d]", i)
	}
	g.WriteString(";\n")
	first := l.Shots[0]
	if first.Screen {
		fmt.Fprintf(&g, "testsrc2=s=%dx%d:r=%d:d=%s[bg0];\n", w, h, frameRate, d)
	} else {
		fmt.Fprintf(&g, "color=c=%s:s=%dx%d:r=%d:d=%s[bg0];\n", first.bg, w, h, frameRate, d)
	}
	cur := "bg0"
	k := 0
	for si, s := range l.Shots {
		if si > 0 {
			next := fmt.Sprintf("bg%d", si)
			if s.Screen {
				fmt.Fprintf(&g, "testsrc2=s=%dx%d:r=%d:d=%s[scr%d];\n[%s][scr%d]overlay=enable='%s'[%s];\n",
					w, h, frameRate, d, si, cur, si, between(s.Span), next)
			} else {
				fmt.Fprintf(&g, "[%s]drawbox=x=0:y=0:w=iw:h=ih:c=%s:t=fill:enable='%s'[%s];\n", cur, s.bg, between(s.Span), next)
			}
			cur = next
		}
		for _, f := range s.Faces {
			imgH := imgHeight(f.scale, h)
			imgW := even(int(math.Round(float64(imgH) * sampleW / sampleH)))
			fx := sampleFaceX
			chain := fmt.Sprintf("[img%d]scale=%d:%d", k, imgW, imgH)
			if f.mirrored {
				chain += ",hflip"
				fx = 1 - sampleFaceX
			}
			if f.Speaks {
				chain += fmt.Sprintf(",drawbox=x=%.0f:y=%.0f:w=%.0f:h=%.0f:c=0x3A1212:t=fill:enable='gt(sin(2*PI*t*%g),0)'",
					(mouthX-mouthW/2)*float64(imgW), (mouthY-mouthH/2)*float64(imgH),
					mouthW*float64(imgW), mouthH*float64(imgH), mouthHz)
			}
			// The face's centre moves linearly over the shot; overlay evaluates x, y per frame.
			span := s.End - s.Start
			x := fmt.Sprintf("(%.5f+%.5f*min(1,max(0,(t-%.4f)/%.4f)))*%d-%.2f",
				f.From.X, f.To.X-f.From.X, s.Start, span, w, fx*float64(imgW))
			y := fmt.Sprintf("(%.5f+%.5f*min(1,max(0,(t-%.4f)/%.4f)))*%d-%.2f",
				f.From.Y, f.To.Y-f.From.Y, s.Start, span, h, sampleFaceY*float64(imgH))
			next := fmt.Sprintf("v%d", k)
			fmt.Fprintf(&g, "%s[f%d];\n[%s][f%d]overlay=x='%s':y='%s':enable='%s':shortest=1[%s];\n",
				chain, k, cur, k, x, y, between(s.Span), next)
			cur = next
			k++
		}
	}
	fmt.Fprintf(&g, "[%s]format=yuv420p[out]", cur)
	return g.String()
}

// imgHeight is the sample image's height in pixels at scale of a picture h high.
func imgHeight(scale float64, h int) int { return even(int(math.Round(scale * float64(h)))) }
