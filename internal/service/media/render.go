package media

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// aspectSizes are the export sizes of the layout aspect ratios.
var aspectSizes = map[string][2]int{
	"portrait":  {1080, 1920},
	"square":    {1080, 1080},
	"landscape": {1920, 1080},
}

const (
	defaultAspect        = "portrait" // the service's default layout
	defaultPreviewHeight = 480
	minPreviewHeight     = 64
	maxWatermarkRunes    = 200
	// endSlack: a highlight may end this far past the probed duration (probes of one file can
	// differ by a frame or an audio packet); it is clamped to the real end.
	endSlack = 0.5
)

// RenderClip renders one highlight of src twice in a single ffmpeg run: the export at the
// aspect's full size and a preview PreviewHeight pixels high with the same aspect. Both are
// H.264 (yuv420p) + AAC MP4 with the index up front. An empty Aspect means portrait.
// Seeking is exact: the clip starts at h.Start and lasts h.End-h.Start. opts.Source, when set,
// saves probing src again for every clip; the result's DurationSec is the export's, probed.
func RenderClip(ctx context.Context, src string, h Highlight, exportPath, previewPath string, opts RenderOptions) (*RenderResult, error) {
	if err := checkRenderPaths(src, exportPath, previewPath); err != nil {
		return nil, err
	}
	size, previewH, err := renderSizes(opts)
	if err != nil {
		return nil, err
	}
	if err := CheckEncodePreset(opts.EncodePreset); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if n := len([]rune(opts.Watermark)); n > maxWatermarkRunes {
		return nil, fmt.Errorf("render: watermark is %d characters, at most %d allowed", n, maxWatermarkRunes)
	}
	info, err := sourceInfo(ctx, src, opts.Source)
	if err != nil {
		return nil, err
	}
	start, dur, err := clipSpan(h, info.DurationSec)
	if err != nil {
		return nil, err
	}
	h.Start = start

	// Beside the export: the caller's (per-job) temporary directory.
	tmp, err := os.MkdirTemp(filepath.Dir(exportPath), "clipperd-render-")
	if err != nil {
		return nil, fmt.Errorf("render: temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	if len(opts.Keep) > 0 {
		opts.Keep = frameSnapped(opts.Keep, info.FPS)
	}
	graph, err := renderGraph(info, h, size, previewH, opts, tmp)
	if err != nil {
		return nil, err
	}
	sound, err := clipSound(ctx, src, info, h, dur, opts)
	if err != nil {
		return nil, err
	}
	graph = sound.graph + graph
	t := strconv.FormatFloat(sound.length, 'f', 3, 64)
	// The graph goes through a file: a long follow path would pass Linux's 128 KiB limit
	// on one argument.
	script := filepath.Join(tmp, "graph.txt")
	if err := os.WriteFile(script, []byte(graph), 0o600); err != nil {
		return nil, fmt.Errorf("render: filtergraph: %w", err)
	}
	args := append(ffmpegBase(), "-ss", strconv.FormatFloat(start, 'f', 3, 64), "-i", toolexec.LocalURL(src), "-filter_complex_script", toolexec.LocalURL(script))
	enc := encoding{preset: cmp.Or(opts.EncodePreset, DefaultEncodePreset), duration: t}
	args = append(args, enc.outputArgs(info, "[export]", sound.audio[0], "20", "128k", exportPath)...)
	args = append(args, enc.outputArgs(info, "[preview]", sound.audio[1], "27", "64k", previewPath)...)
	if err := runTool(ctx, "render: ffmpeg", "ffmpeg", args, nil); err != nil {
		os.Remove(exportPath)
		os.Remove(previewPath)
		return nil, err
	}
	return renderedFiles(ctx, exportPath, previewPath)
}

// checkRenderPaths refuses outputs that are missing, the same file, or the
// source: ffmpeg would overwrite what it reads.
func checkRenderPaths(src, exportPath, previewPath string) error {
	if exportPath == "" || previewPath == "" || exportPath == previewPath {
		return errors.New("render: exportPath and previewPath must be set and differ")
	}
	if sameFile(src, exportPath) || sameFile(src, previewPath) {
		return errors.New("render: an output path must not be the source")
	}
	return nil
}

// renderSound is the audio side of a render: the filtergraph that goes
// before the picture's (the cut of opts.Keep, the sound chain), the audio
// each output maps, and the clip's length once cut and joined.
type renderSound struct {
	graph  string
	audio  [2]string // the export's and the preview's
	length float64
}

// clipSound builds the audio of highlight h (dur seconds from h.Start): the
// source's audio stream as it is, or through soundGraph when the clip is
// cut, its voice enhanced or its joins overlap.
func clipSound(ctx context.Context, src string, info *ProbeResult, h Highlight, dur float64, opts RenderOptions) (renderSound, error) {
	s := renderSound{audio: [2]string{"0:" + strconv.Itoa(info.AudioStream), "0:" + strconv.Itoa(info.AudioStream)}, length: dur}
	voice, err := voiceFor(ctx, src, info, h.Start, dur, opts)
	if err != nil {
		return renderSound{}, err
	}
	joins := ClipJoins(h, info.DurationSec, opts)
	audioIn := "[" + s.audio[0] + "]"
	if len(opts.Keep) > 0 {
		s.graph = cutGraph(info, h.Start, opts.Keep)
		s.length = Length(opts.Keep)
		audioIn = "[ca]"
	}
	if info.HasAudio && (len(opts.Keep) > 0 || voice != "" || Overlap(joins) > 0) {
		var sound string
		sound, s.audio = soundGraph(audioIn, joins, voice)
		s.graph = sound + s.graph
	}
	s.length -= Overlap(joins)
	return s, nil
}

// renderedFiles is the result of a render: the outputs' sizes and the
// export's length as probed.
func renderedFiles(ctx context.Context, exportPath, previewPath string) (*RenderResult, error) {
	res := &RenderResult{}
	for _, f := range []struct {
		path string
		dst  *int64
	}{{exportPath, &res.ExportBytes}, {previewPath, &res.PreviewBytes}} {
		st, err := os.Stat(f.path)
		if err != nil {
			return nil, fmt.Errorf("render: %w", err)
		}
		*f.dst = st.Size()
	}
	// The encoded length differs from the asked one by up to a frame or an
	// audio packet; clips report what the file holds.
	out, err := Probe(ctx, exportPath)
	if err != nil {
		return nil, fmt.Errorf("render: probe export: %w", err)
	}
	res.DurationSec = out.DurationSec
	return res, nil
}

// renderGraph is the filtergraph of a render: the reframe, then the captions, then the
// watermark, split into [export] and [preview]. Files it needs go in tmp.
func renderGraph(info *ProbeResult, h Highlight, size [2]int, previewH int, opts RenderOptions, tmp string) (string, error) {
	in := fmt.Sprintf("[0:%d]", info.VideoStream)
	if len(opts.Keep) > 0 {
		in = "[cv]"
	}
	pieces := clipPieces(h, info.DurationSec, opts.Keep)
	segs, err := layoutSegments(pieces, opts, centre(h.CenterX))
	if err != nil {
		return "", err
	}
	graph := layoutGraph(in, info.Width, info.Height, size, segs, pieces, opts.Follow, opts.FitCropRatio)
	graph = overlayGraph(brollGraph(graph, opts.Broll, size), opts.Overlays, size)
	graph = transitionVideo(graph, ClipJoins(h, info.DurationSec, opts), Length(pieces))
	if opts.Captions != nil && len(opts.Captions.Lines) > 0 {
		subs, err := captionFilter(*opts.Captions, size, tmp)
		if err != nil {
			return "", err
		}
		graph += "," + subs
	}
	if opts.Emoji != nil {
		emo, err := emojiFilter(*opts.Emoji, size, tmp)
		if err != nil {
			return "", err
		}
		graph += emo
	}
	if opts.Hook != nil {
		hook, err := hookFilter(*opts.Hook, size, tmp)
		if err != nil {
			return "", err
		}
		if hook != "" {
			graph += "," + hook
		}
	}
	if opts.Watermark != "" {
		mark, err := watermarkFilter(opts.Watermark, size, tmp)
		if err != nil {
			return "", err
		}
		graph += "," + mark
	}
	previewW := evenRound(float64(previewH) * float64(size[0]) / float64(size[1]))
	return graph + fmt.Sprintf(",split=2[export][p];[p]scale=%d:%d:flags=bicubic,setsar=1[preview]", previewW, previewH), nil
}

func renderSizes(opts RenderOptions) ([2]int, int, error) {
	aspect := opts.Aspect
	if aspect == "" {
		aspect = defaultAspect
	}
	size, ok := aspectSizes[aspect]
	if !ok {
		return size, 0, fmt.Errorf("render: aspect %q: want portrait, square or landscape", opts.Aspect)
	}
	ph := opts.PreviewHeight
	if ph == 0 {
		ph = defaultPreviewHeight
	}
	if ph < minPreviewHeight || ph > size[1] {
		return size, 0, fmt.Errorf("render: previewHeight %d: want %d to %d (the export height)", opts.PreviewHeight, minPreviewHeight, size[1])
	}
	return size, ph &^ 1, nil
}

// clipSpan checks a highlight against the source and returns its start and length.
func clipSpan(h Highlight, duration float64) (float64, float64, error) {
	switch {
	case math.IsNaN(h.Start) || math.IsNaN(h.End) || math.IsInf(h.Start, 0) || math.IsInf(h.End, 0):
		return 0, 0, errors.New("render: highlight start and end must be finite numbers")
	case h.Start < 0 || h.End <= h.Start:
		return 0, 0, fmt.Errorf("render: highlight %.3f-%.3f: want 0 <= start < end", h.Start, h.End)
	case h.Start >= duration || h.End > duration+endSlack:
		return 0, 0, fmt.Errorf("render: highlight %.3f-%.3f lies outside the %.3f s source", h.Start, h.End, duration)
	}
	// ffmpeg seeks to the millisecond it is given: the layout's times count from the same.
	start := math.Round(h.Start*1000) / 1000
	end := min(h.End, duration)
	if end-start < 1e-3 {
		return 0, 0, fmt.Errorf("render: highlight %.4f-%.4f: want at least a millisecond", h.Start, h.End)
	}
	return start, end - start, nil
}

func centre(cx float64) float64 {
	if math.IsNaN(cx) {
		return 0.5
	}
	return min(1, max(0, cx))
}

// cropBox is the largest box of aspect ar inside w x h, centred horizontally on cx (clamped
// to the picture) and vertically.
func cropBox(w, h int, ar, cx float64) (cw, ch, x, y int) {
	if float64(w)/float64(h) > ar {
		ch = h
		cw = min(w, evenRound(float64(h)*ar))
		x = int(math.Round(cx*float64(w) - float64(cw)/2))
		x = min(w-cw, max(0, x))
		return cw, ch, x, 0
	}
	cw = w
	ch = min(h, evenRound(float64(w)/ar))
	return cw, ch, 0, (h - ch) / 2
}

func evenRound(v float64) int { return max(2, int(math.Round(v/2))*2) }

// encoding is what a render's outputs share: x264's preset and the clip's length.
type encoding struct{ preset, duration string }

// outputArgs encodes one labelled picture (and the audio stream or label, if the source has
// audio) to an MP4 file.
func (e encoding) outputArgs(info *ProbeResult, label, audio, crf, audioRate, path string) []string {
	args := []string{"-map", label}
	if info.HasAudio {
		args = append(args, "-map", audio, "-c:a", "aac", "-b:a", audioRate)
	}
	return append(args, "-t", e.duration, "-c:v", "libx264", "-preset", e.preset, "-crf", crf,
		"-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", toolexec.LocalURL(path))
}

// watermarkFilter draws text in the bottom right corner. The text goes through a file so no
// character of it can break the filtergraph, and expansion is off so "%{...}" stays literal.
// Without drawtext (ffmpeg built without libfreetype) a translucent mark box stands in.
func watermarkFilter(text string, size [2]int, tmp string) (string, error) {
	fs := min(size[0], size[1]) / 20
	margin := fs / 2
	if !hasFilter("drawtext") {
		return fmt.Sprintf("drawbox=x=iw-iw/4-%d:y=ih-%d:w=iw/4:h=%d:color=white@0.45:t=fill", margin, fs+margin, fs), nil
	}
	file := filepath.Join(tmp, "watermark.txt")
	if err := os.WriteFile(file, []byte(strings.TrimRight(text, "\n")), 0o600); err != nil {
		return "", fmt.Errorf("render: watermark text: %w", err)
	}
	f := "drawtext="
	if font := fontFile(); font != "" {
		f += "fontfile=" + toolexec.FilterValue(font) + ":"
	}
	return f + fmt.Sprintf("textfile=%s:expansion=none:fontsize=%d:fontcolor=white@0.85:"+
		"borderw=%d:bordercolor=black@0.6:x=w-tw-%d:y=h-th-%d",
		toolexec.FilterValue(file), fs, max(1, fs/18), margin, margin), nil
}

// captionFilter writes the captions as an ASS file for the output frame and returns the
// filter that draws it (libass, fonts through fontconfig).
func captionFilter(c Captions, size [2]int, tmp string) (string, error) {
	if !hasFilter("ass") {
		return "", errors.New("render: captions need ffmpeg's ass filter (ffmpeg built with libass)")
	}
	file := filepath.Join(tmp, "captions.ass")
	c.Style.Font = captionFonts.resolve(c.Style.Font)
	if err := os.WriteFile(file, []byte(ASS(c, size[0], size[1])), 0o600); err != nil {
		return "", fmt.Errorf("render: captions: %w", err)
	}
	return "ass=filename=" + toolexec.FilterValue(file), nil
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
