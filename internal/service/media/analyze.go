package media

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/faces"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

const (
	// windowSec is the analysis resolution; the picture is sampled at the same rate.
	windowSec = 0.5
	// analysisRate: audio is reduced to 16 kHz mono before measuring: plenty for speech.
	analysisRate = 16000
	// silenceNoiseDB / silenceMinSec: quieter than this for at least this long is a pause.
	silenceNoiseDB = -35
	silenceMinSec  = 0.4
	// sceneThreshold is select's scene score above which a frame starts a new shot.
	sceneThreshold = 0.3
	// floorDB stands for digital silence (astats reports -inf).
	floorDB = -90.0
	// sampleSide is the longer side of the tiny picture that scene and centre detection see.
	sampleSide = 160
)

// Analyze decodes path once and extracts every curation signal from that single pass: per
// window loudness (astats), pauses (silencedetect), scene cuts (select on a downscaled copy),
// and from a 4 fps grayscale stream read here, a horizontal centre of interest (2 fps) and
// the faces of each shot with the speaker-following path (see addFaces).
// A source without audio gets floor loudness, no speech and one pause spanning everything.
func Analyze(ctx context.Context, path string) (*Analysis, error) {
	return AnalyzeProbed(ctx, path, nil, "")
}

// AnalyzeProbed is Analyze of a source the caller has probed already: src
// is Probe's result for path (nil probes it). Its temporary files go under
// tmpDir (a job's directory; "" is the system's).
func AnalyzeProbed(ctx context.Context, path string, src *ProbeResult, tmpDir string) (*Analysis, error) {
	return AnalyzeWith(ctx, path, src, tmpDir, AnalyzeOptions{})
}

// AnalyzeOptions change how Analyze looks at the picture.
type AnalyzeOptions struct {
	// FaceBaseline analyses faces as before issue 26 (detection frames of
	// 2*sampleSide, so faces under about a quarter of a 16:9 source's height
	// are too small to find; cuts only where the whole picture changes),
	// kept so the benchmark measures the analysis against it in one run.
	FaceBaseline bool
}

// AnalyzeWith is AnalyzeProbed with options.
func AnalyzeWith(ctx context.Context, path string, src *ProbeResult, tmpDir string, opts AnalyzeOptions) (*Analysis, error) {
	info, err := sourceInfo(ctx, path, src)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tmpDir, "clipperd-analyze-")
	if err != nil {
		return nil, fmt.Errorf("analyze: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	audioLog, sceneLog := filepath.Join(dir, "audio.txt"), filepath.Join(dir, "scenes.txt")

	sw, sh := sampleSize(info.Width, info.Height)
	// Scene cuts see every frame at the tiny size; faces see faceFPS frames a
	// second at scale times twice that size (large enough for a face of
	// minSourceFacePx), and the centre of motion every other one of those,
	// shrunk to the tiny size: the full-size frames are scaled only a few times
	// a second. Every frame's scene score is logged: a jump cut (a face cut
	// from one place to another over one background) is placed at the frame
	// that changes most between its two samples.
	scale := faceScale(info.Width, info.Height)
	sceneSelect := "gte(scene,0)"
	if opts.FaceBaseline {
		scale, sceneSelect = 1, fmt.Sprintf("gt(scene,%g)", sceneThreshold)
	}
	fw, fh := 2*sw*scale, 2*sh*scale
	graph := fmt.Sprintf("[0:%d]split[sv][fv];"+
		"[sv]scale=%d:%d:flags=fast_bilinear,select='%s',metadata=print:key=lavfi.scene_score:file=%s,nullsink;"+
		"[fv]fps=%d,scale=%d:%d:flags=fast_bilinear,format=gray[thumbs]",
		info.VideoStream, sw, sh, sceneSelect, toolexec.FilterValue(sceneLog), faceFPS, fw, fh)
	if info.HasAudio {
		graph += fmt.Sprintf(";[0:%d]aformat=sample_fmts=flt:sample_rates=%d:channel_layouts=mono,"+
			"asetnsamples=n=%d:p=1,"+
			"astats=metadata=1:reset=1:measure_perchannel=none:measure_overall=RMS_level,"+
			"silencedetect=n=%ddB:d=%g,ametadata=print:file=%s[aud]",
			info.AudioStream, analysisRate, int(analysisRate*windowSec), silenceNoiseDB, silenceMinSec, toolexec.FilterValue(audioLog))
	}
	// One filter thread: the filters see tiny frames, thread hand-offs cost more than they
	// save, and the decoder's own threads already keep the cores busy.
	args := append(ffmpegBase(), "-filter_complex_threads", "1", "-i", toolexec.LocalURL(path), "-filter_complex", graph,
		"-map", "[thumbs]", "-f", "rawvideo", "pipe:1")
	if info.HasAudio {
		args = append(args, "-map", "[aud]", "-f", "null", "-")
	}

	cmd := toolexec.Command(ctx, "ffmpeg", args...)
	tail := &toolexec.Tail{}
	cmd.Stderr = tail
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("analyze: start ffmpeg: %w", err)
	}
	detector := newFaceSampler(fw, fh, scale, opts.FaceBaseline)
	var centres []float64
	var readErr error
	if scale == 1 {
		centres, readErr = readSamples(stdout, fw, fh, faceFPS*windowSec, detector.add)
	} else {
		// readSamples sees the coarse frames; the sampler the detection frames.
		coarse := newShrinkReader(stdout, fw, fh, scale, detector.addShrunk)
		centres, readErr = readSamples(coarse, fw/scale, fh/scale, faceFPS*windowSec, func(int, []byte) {})
	}
	samples := detector.finish()
	if readErr != nil {
		// Drain so ffmpeg is not blocked on a full pipe while we wait for it.
		_, _ = io.Copy(io.Discard, stdout)
	}
	if err := cmd.Wait(); err != nil {
		return nil, toolError(ctx, "analyze: ffmpeg", err, tail)
	}
	if readErr != nil {
		return nil, fmt.Errorf("analyze: read thumbnails: %w", readErr)
	}

	n := int(math.Ceil(info.DurationSec/windowSec - 1e-9))
	a := &Analysis{
		DurationSec: info.DurationSec,
		WindowSec:   windowSec,
		LoudnessDB:  make([]float64, n),
		Speech:      make([]bool, n),
	}
	for i := range a.LoudnessDB {
		a.LoudnessDB[i] = floorDB
	}
	scores, err := readSceneScores(sceneLog, info.DurationSec)
	if err != nil {
		return nil, err
	}
	var jumps []float64
	if !opts.FaceBaseline {
		jumps = jumpTimes(scores, samples, faces.JumpCuts(samples, fw))
	}
	a.SceneCuts = sceneCuts(scores, jumps)
	a.CenterX = smoothCentres(centres, n, windowSec, a.SceneCuts)
	addFaces(a, samples, fw, fh)
	if info.HasAudio {
		if a.Silences, err = readAudioLog(audioLog, a); err != nil {
			return nil, err
		}
	} else {
		a.Silences = []Interval{{0, info.DurationSec}}
	}
	markSpeech(a)
	return a, nil
}

// sampleSize scales the longer side to sampleSide, keeping both sides even.
func sampleSize(w, h int) (int, int) {
	if w >= h {
		return sampleSide, max(2, int(math.Round(float64(sampleSide*h)/float64(w)/2))*2)
	}
	return max(2, int(math.Round(float64(sampleSide*w)/float64(h)/2))*2), sampleSide
}

// metaFrames walks the output of ametadata/metadata print: a "frame:N pts:P pts_time:T" line
// followed by key=value lines for that frame.
func metaFrames(path string, fn func(t float64, key, value string)) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // the filter creates the file on its first frame; none printed means none found
	}
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	t := math.NaN()
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "frame:") {
			t = math.NaN()
			if _, after, ok := strings.Cut(line, "pts_time:"); ok {
				if v, err := strconv.ParseFloat(strings.TrimSpace(after), 64); err == nil {
					t = v
				}
			}
			continue
		}
		if key, value, ok := strings.Cut(line, "="); ok && !math.IsNaN(t) {
			fn(t, key, value)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("analyze: read %s: %w", filepath.Base(path), err)
	}
	return nil
}

// sceneScore is a frame's scene score (select's, 0..1) at source time t.
type sceneScore struct{ t, score float64 }

// readSceneScores returns the frames' scene scores, in time order, inside 0..duration.
func readSceneScores(path string, duration float64) ([]sceneScore, error) {
	var out []sceneScore
	err := metaFrames(path, func(t float64, key, value string) {
		if key != "lavfi.scene_score" || t <= 0 || t >= duration {
			return
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out = append(out, sceneScore{t, v})
		}
	})
	return out, err
}

// sceneCuts returns the cut times: the frames scoring above sceneThreshold
// and the jump cuts, in order, dropping a cut within half a second of the
// previous one (a flash or a dissolve is one change, not several).
func sceneCuts(scores []sceneScore, jumps []float64) []float64 {
	var all []float64
	for _, s := range scores {
		if s.score > sceneThreshold {
			all = append(all, s.t)
		}
	}
	all = append(all, jumps...)
	sort.Float64s(all)
	var cuts []float64
	for _, t := range all {
		if len(cuts) > 0 && t-cuts[len(cuts)-1] < 0.5 {
			continue
		}
		cuts = append(cuts, t)
	}
	return cuts
}

// jumpTimes places each jump cut at the frame scoring highest between the
// samples around it: the frame that changed, found to the frame though the
// faces are sampled four times a second.
func jumpTimes(scores []sceneScore, samples []faces.Sample, jumps []faces.Jump) []float64 {
	var out []float64
	for _, j := range jumps {
		t0, t1 := samples[j.Before].T, samples[j.After].T
		best, at := -1.0, t1
		for _, s := range scores {
			if s.t > t0+1e-6 && s.t <= t1+1e-6 && s.score > best {
				best, at = s.score, s.t
			}
		}
		out = append(out, at)
	}
	return out
}

// readAudioLog fills a.LoudnessDB and returns the pauses found by silencedetect.
func readAudioLog(path string, a *Analysis) ([]Interval, error) {
	var silences []Interval
	open := math.NaN()
	lastAudio := 0.0
	err := metaFrames(path, func(t float64, key, value string) {
		lastAudio = max(lastAudio, t+windowSec)
		switch key {
		case "lavfi.astats.Overall.RMS_level":
			i := int(math.Round(t / windowSec))
			if i < 0 || i >= len(a.LoudnessDB) {
				return
			}
			v, err := strconv.ParseFloat(value, 64)
			if err != nil || math.IsNaN(v) || v < floorDB {
				v = floorDB // "-inf" for digital silence
			}
			a.LoudnessDB[i] = v
		case "lavfi.silence_start":
			if v, err := strconv.ParseFloat(value, 64); err == nil {
				open = max(0, v)
			}
		case "lavfi.silence_end":
			v, err := strconv.ParseFloat(value, 64)
			if err == nil && !math.IsNaN(open) {
				silences = appendInterval(silences, Interval{open, min(v, a.DurationSec)})
			}
			open = math.NaN()
		}
	})
	if err != nil {
		return nil, err
	}
	switch {
	case !math.IsNaN(open):
		// silencedetect does not report a pause still running at the end of the stream.
		silences = appendInterval(silences, Interval{open, a.DurationSec})
	case lastAudio < a.DurationSec-silenceMinSec:
		// The audio stops before the picture: what follows is silent.
		silences = appendInterval(silences, Interval{lastAudio, a.DurationSec})
	}
	sort.Slice(silences, func(i, j int) bool { return silences[i].Start < silences[j].Start })
	return silences, nil
}

func appendInterval(list []Interval, iv Interval) []Interval {
	if iv.End <= iv.Start {
		return list
	}
	return append(list, iv)
}

// markSpeech flags a window as speech when less than half of it lies in a pause.
func markSpeech(a *Analysis) {
	j := 0
	for i := range a.Speech {
		ws, we := float64(i)*a.WindowSec, float64(i+1)*a.WindowSec
		we = min(we, a.DurationSec)
		for j < len(a.Silences) && a.Silences[j].End <= ws {
			j++
		}
		silent := 0.0
		for k := j; k < len(a.Silences) && a.Silences[k].Start < we; k++ {
			silent += min(we, a.Silences[k].End) - max(ws, a.Silences[k].Start)
		}
		a.Speech[i] = we > ws && silent < (we-ws)/2 && a.LoudnessDB[i] > floorDB
	}
}
