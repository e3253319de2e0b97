package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/stagetimes"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// runPipeline measures, on one generated source and in one run:
// (a) media.Analyze against a plain `ffmpeg -i SRC -f null -` decode, and
// (b) clipperd's whole pipeline (create to COMPLETE) against the sum of the
// plain ffmpeg commands that cut and render the same clips.
func runPipeline(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("pipeline", flag.ContinueOnError)
	length := fs.Duration("source", 10*time.Minute, "length of the generated source")
	rounds := fs.Int("rounds", 3, "rounds of (a), alternating the two sides; the median is reported")
	sound := fs.Bool("sound", false, "render with enableVoiceEnhancement, enableAutoTransition and selectedTransitions [fade, wipeleft] on")
	looks := fs.Bool("looks", false, "besides -sound's, render with captions (karaoke), the visual hook, emoji and the filler cut on (issue 20's looks)")
	faces := fs.Bool("faces", false, "generate a source with a face moving across it (testvideo.MovingFace, silent) instead of the speech source")
	sourceFile := fs.String("source-file", "", "use this video as the source instead of generating one (to compare two builds on one file)")
	keep := fs.String("keep-source", "", "copy the generated source to this path (for -source-file of another build)")
	pipelineOnly := fs.Bool("pipeline-only", false, "skip (a) (two decodes a round): measure (b) only, e.g. on a long source")
	plain := fs.Bool("plain", true, "run (b)'s plain ffmpeg commands; -plain=false times clipperd's pipeline alone")
	asr := fs.String("asr", "", "speech recogniser of the in-process clipperd (pocketsphinx); default none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "clipper-bench-pipeline-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	src, kind, err := pipelineSource(ctx, work, *length, *faces, *sourceFile)
	if err != nil {
		return err
	}
	if *keep != "" {
		if err := copyFile(src, *keep); err != nil {
			return err
		}
	}
	var a analysisMedians
	if !*pipelineOnly {
		if a, err = analysisAgainstDecode(ctx, src, *rounds); err != nil {
			return err
		}
	}
	b, err := pipelineAgainstPlain(ctx, work, src, *asr, pipelineRenderPref(*sound, *looks), *plain)
	if err != nil {
		return err
	}

	fmt.Printf("### Pipeline: %s, portrait clips\n\n", kind)
	fmt.Printf("| measure | time | ratio |\n|---|---|---|\n")
	if !*pipelineOnly {
		fmt.Printf("| (a) plain decode `ffmpeg -i SRC -f null -` (median of %d) | %.2f s | 1.00 |\n", *rounds, a.plain.Seconds())
		fmt.Printf("| (a) analysis pass `media.Analyze` (median of %d) | %.2f s | **%.2f** |\n", *rounds, a.analysis.Seconds(), a.analysis.Seconds()/a.plain.Seconds())
		fmt.Printf("| (a) CPU time: plain decode / analysis pass (medians) | %.2f s / %.2f s | **%.2f** |\n", a.plainCPU.Seconds(), a.analysisCPU.Seconds(), a.analysisCPU.Seconds()/a.plainCPU.Seconds())
	}
	ratio := "" // of the pipeline to the plain commands, when they ran
	if *plain {
		fmt.Printf("| (b) plain ffmpeg commands making the same %d clips (%.0f s of clips, export + preview) | %.2f s | 1.00 |\n", b.clips, b.clipSeconds, b.plain.Seconds())
		ratio = fmt.Sprintf("**%.2f**", b.pipeline.Seconds()/b.plain.Seconds())
	}
	fmt.Printf("| (b) clipperd pipeline, create to COMPLETE (import, probe, analysis, curation, renders) | %.2f s | %s |\n\n", b.pipeline.Seconds(), ratio)
	fmt.Printf("(b) clipperd's project in each stage (its log; %d clips, recogniser %s):\n\n%s\n", b.clips, recogniserName(*asr),
		stagetimes.Markdown([]string{"time"}, []stagetimes.Times{b.stages}))
	return nil
}

// pipelineMeasure is (b): clipperd's pipeline, create to COMPLETE, and the
// time the project spent in each stage; the plain ffmpeg commands making
// the same clips (zero when not run); the clips and their length.
type pipelineMeasure struct {
	pipeline, plain time.Duration
	stages          stagetimes.Times
	clips           int
	clipSeconds     float64
}

// pipelineAgainstPlain is (b): one project of src through an in-process
// clipperd's API (with the recogniser asr), then, with plain, the plain
// ffmpeg commands making the same clips. The server logs to a file in work,
// whose stage lines give the project's time in each stage.
func pipelineAgainstPlain(ctx context.Context, work, src, asr string, rp *apitypes.RenderPref, plain bool) (pipelineMeasure, error) {
	var m pipelineMeasure
	logPath := filepath.Join(work, "clipperd.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return m, err
	}
	defer logFile.Close()
	const key = "bench-key"
	srv, err := server.Start(ctx, server.Config{Listen: "127.0.0.1:0", DataDir: filepath.Join(work, "data"), APIKey: key, ASR: asr,
		Logger: slog.New(slog.NewTextHandler(logFile, nil))})
	if err != nil {
		return m, err
	}
	defer srv.Close()
	c, err := client.New(client.Config{BaseURL: srv.URL(), APIKey: key, RequestsPerMinute: 600})
	if err != nil {
		return m, err
	}
	pipelineTime, clips, projectID, err := clipProject(ctx, c, src, rp)
	if err != nil {
		return m, err
	}
	m.pipeline, m.clips = pipelineTime, len(clips)
	logText, err := os.ReadFile(logPath)
	if err != nil {
		return m, err
	}
	times, err := stagetimes.Read(bytes.NewReader(logText))
	if err != nil {
		return m, err
	}
	m.stages = times[projectID]
	if plain {
		m.plain, m.clipSeconds, err = plainFFmpegClips(ctx, work, src, clips)
	}
	return m, err
}

func recogniserName(asr string) string {
	if asr == "" {
		return "none"
	}
	return asr
}

// pipelineSource is the benchmark's source video and a phrase saying what it
// is: sourceFile when set, else one generated in work (a moving face with
// faces, speech otherwise).
func pipelineSource(ctx context.Context, work string, length time.Duration, faces bool, sourceFile string) (src, kind string, err error) {
	src, kind = filepath.Join(work, "source.mp4"), "generated "+length.String()+" 1280x720 source with speech"
	genStart := time.Now()
	switch {
	case sourceFile != "":
		src, kind = sourceFile, "source "+filepath.Base(sourceFile)
	case faces:
		if _, err := testvideo.MovingFace(ctx, src, testvideo.FaceOptions{Duration: length, Silent: true}); err != nil {
			return "", "", err
		}
		kind = "generated " + length.String() + " 1280x720 source with a face moving across it"
	default:
		if err := testvideo.Generate(ctx, src, testvideo.Options{Duration: length, Width: 1280, Height: 720}); err != nil {
			return "", "", err
		}
	}
	fmt.Fprintf(os.Stderr, "%s ready in %s\n", kind, time.Since(genStart).Round(time.Second))
	return src, kind, nil
}

// analysisMedians are the medians of (a): wall and CPU time of a plain
// decode and of the analysis pass.
type analysisMedians struct {
	plain, analysis, plainCPU, analysisCPU time.Duration
}

// analysisAgainstDecode is (a): the analysis pass against a plain decode,
// alternating so drift hits both. CPU time (this process and its children:
// ffmpeg, and the face detection beside it) is measured too: on a loaded
// machine wall time drifts with the neighbours, CPU time much less.
func analysisAgainstDecode(ctx context.Context, src string, rounds int) (analysisMedians, error) {
	var plain, analysis, plainCPU, analysisCPU []time.Duration
	for range rounds {
		d, c, err := timedCPU(func() error { return ffmpeg(ctx, "-i", src, "-f", "null", "-") })
		if err != nil {
			return analysisMedians{}, err
		}
		plain, plainCPU = append(plain, d), append(plainCPU, c)
		d, c, err = timedCPU(func() error { _, err := media.Analyze(ctx, src); return err })
		if err != nil {
			return analysisMedians{}, err
		}
		analysis, analysisCPU = append(analysis, d), append(analysisCPU, c)
	}
	return analysisMedians{median(plain), median(analysis), median(plainCPU), median(analysisCPU)}, nil
}

// pipelineRenderPref is the portrait render, with -sound's and -looks'
// options on when asked.
func pipelineRenderPref(sound, looks bool) *apitypes.RenderPref {
	rp := &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait}
	if sound || looks {
		on := true
		rp.EnableVoiceEnhancement, rp.EnableAutoTransition, rp.SelectedTransitions = &on, &on, []string{"fade", "wipeleft"}
	}
	if looks {
		on := true
		rp.EnableCaption, rp.CaptionStyle, rp.EnableVisualHook, rp.EnableEmoji = &on, "karaoke", &on, &on
		rp.QuickstartConfig = &apitypes.QuickstartConfig{EnableRemoveFillerWords: &on}
	}
	return rp
}

// clipProject uploads src, creates a project of 20-45 s clips and waits for
// it: the time from create to COMPLETE (as the project's timestamps say),
// its clips and its id.
func clipProject(ctx context.Context, c *client.Client, src string, rp *apitypes.RenderPref) (time.Duration, []apitypes.ExportableClip, string, error) {
	uploadID, err := c.UploadFile(ctx, src)
	if err != nil {
		return 0, nil, "", err
	}
	p, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{
		VideoURL:     uploadID,
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{20, 45}}},
		RenderPref:   rp,
	})
	if err != nil {
		return 0, nil, "", err
	}
	p, err = c.WaitForProject(ctx, p.ID, client.WaitOptions{PollInterval: 200 * time.Millisecond, MaxPollInterval: time.Second})
	if err != nil {
		return 0, nil, "", err
	}
	created, _ := time.Parse(time.RFC3339, p.CreatedAt)
	updated, _ := time.Parse(time.RFC3339, p.UpdatedAt)
	clips, err := c.ListExportableClips(ctx, client.ClipFilter{ProjectID: p.ID})
	if err != nil {
		return 0, nil, "", err
	}
	return updated.Sub(created), clips, p.ID, nil
}

// plainFFmpegClips makes the same clips with plain ffmpeg: one command per
// clip for the 1080x1920 centre-cropped export, one for the 480p preview.
// It returns the commands' total time and the clips' total length.
func plainFFmpegClips(ctx context.Context, work, src string, clips []apitypes.ExportableClip) (time.Duration, float64, error) {
	var plainClips time.Duration
	var clipSeconds float64
	for i, clip := range clips {
		if len(clip.TimeRanges) == 0 {
			return 0, 0, fmt.Errorf("clip %s has no time range", clip.ID)
		}
		start := float64(clip.TimeRanges[0][0]) / 1000
		dur := float64(clip.TimeRanges[0][1]-clip.TimeRanges[0][0]) / 1000
		clipSeconds += dur
		for _, out := range []struct{ name, scale string }{{"export", "1080:1920"}, {"preview", "270:480"}} {
			d, err := timed(func() error {
				return ffmpeg(ctx, "-ss", ftoa(start), "-i", src, "-t", ftoa(dur),
					"-vf", "crop=ih*9/16:ih,scale="+out.scale+",setsar=1", "-c:v", "libx264", "-preset", "veryfast",
					"-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart",
					filepath.Join(work, fmt.Sprintf("plain-%d-%s.mp4", i, out.name)))
			})
			if err != nil {
				return 0, 0, err
			}
			plainClips += d
		}
	}
	return plainClips, clipSeconds, nil
}

func ffmpeg(ctx context.Context, args ...string) error {
	full := append([]string{"-nostdin", "-v", "error", "-y"}, args...)
	if out, err := exec.CommandContext(ctx, "ffmpeg", full...).CombinedOutput(); err != nil {
		return fmt.Errorf("ffmpeg %v: %w: %s", args, err, out)
	}
	return nil
}

func timed(fn func() error) (time.Duration, error) {
	start := time.Now()
	err := fn()
	return time.Since(start), err
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// timedCPU is timed with the CPU time fn used in this process and in the
// children it waited for.
func timedCPU(fn func() error) (time.Duration, time.Duration, error) {
	before := cpuTime()
	d, err := timed(fn)
	return d, cpuTime() - before, err
}

func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}
