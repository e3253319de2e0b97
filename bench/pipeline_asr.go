package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/client"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// runPipelineASR times clipperd's whole pipeline with speech recognition and
// burnt-in captions against the plain commands that make the same clips:
// one pocketsphinx_continuous run over the source's audio, then per clip an
// ffmpeg command that crops, scales and draws the clip's captions (the .srt
// clipperd wrote) for the export and the preview.
func runPipelineASR(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("pipeline-asr", flag.ContinueOnError)
	length := fs.Duration("source", 10*time.Minute, "length of the generated source")
	if err := fs.Parse(args); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "clipper-bench-pipeline-asr-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "source.mp4")
	if err := testvideo.Generate(ctx, src, testvideo.Options{Duration: *length, Width: 1280, Height: 720, Voice: testvideo.VoiceFestival}); err != nil {
		return err
	}

	dataDir := filepath.Join(work, "data")
	srv, err := server.Start(ctx, server.Config{Listen: "127.0.0.1:0", DataDir: dataDir, APIKey: benchKey, ASR: transcribe.KindPocketsphinx})
	if err != nil {
		return err
	}
	defer srv.Close()
	c, err := client.New(client.Config{BaseURL: srv.URL(), APIKey: benchKey, RequestsPerMinute: 600})
	if err != nil {
		return err
	}
	uploadID, err := c.UploadFile(ctx, src)
	if err != nil {
		return err
	}
	yes := true
	p, err := c.CreateProject(ctx, apitypes.CreateProjectRequest{
		VideoURL:     uploadID,
		CurationPref: &apitypes.CurationPref{ClipDurations: [][2]float64{{20, 45}}},
		RenderPref:   &apitypes.RenderPref{LayoutAspectRatio: apitypes.AspectPortrait, EnableCaption: &yes},
	})
	if err != nil {
		return err
	}
	if p, err = c.WaitForProject(ctx, p.ID, client.WaitOptions{PollInterval: 200 * time.Millisecond, MaxPollInterval: time.Second}); err != nil {
		return err
	}
	created, _ := time.Parse(time.RFC3339, p.CreatedAt)
	updated, _ := time.Parse(time.RFC3339, p.UpdatedAt)
	pipelineTime := updated.Sub(created)
	clips, err := c.ListExportableClips(ctx, client.ClipFilter{ProjectID: p.ID})
	if err != nil {
		return err
	}

	wav := filepath.Join(work, "audio.wav")
	recognise, err := timed(func() error {
		if err := transcribe.ExtractWAV(ctx, src, 0, 0, wav); err != nil {
			return err
		}
		out, err := exec.CommandContext(ctx, transcribe.PocketsphinxTool, "-infile", wav, "-time", "yes", "-logfn", "/dev/null").CombinedOutput()
		if err != nil {
			return fmt.Errorf("pocketsphinx_continuous: %w\n%s", err, out)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var renders time.Duration
	var clipSeconds float64
	for i, clip := range clips {
		if len(clip.TimeRanges) == 0 {
			return fmt.Errorf("clip %s has no time range", clip.ID)
		}
		start := float64(clip.TimeRanges[0][0]) / 1000
		dur := float64(clip.TimeRanges[0][1]-clip.TimeRanges[0][0]) / 1000
		clipSeconds += dur
		srt := filepath.Join(dataDir, "media", p.ID, clip.CurationID+".srt")
		for _, out := range []struct{ name, scale string }{{"export", "1080:1920"}, {"preview", "270:480"}} {
			d, err := timed(func() error {
				return ffmpeg(ctx, "-ss", ftoa(start), "-i", src, "-t", ftoa(dur),
					"-vf", "crop=ih*9/16:ih,scale="+out.scale+",setsar=1,subtitles="+strings.ReplaceAll(srt, ":", `\:`),
					"-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart",
					filepath.Join(work, fmt.Sprintf("plain-%d-%s.mp4", i, out.name)))
			})
			if err != nil {
				return err
			}
			renders += d
		}
	}
	plain := recognise + renders
	fmt.Printf("### Pipeline with speech recognition and captions: generated %s 1280x720 source with festival speech, portrait clips\n\n", *length)
	fmt.Printf("| measure | time | ratio |\n|---|---|---|\n")
	fmt.Printf("| plain commands: one `pocketsphinx_continuous` run (%.1f s) + ffmpeg drawing each clip's captions, export + preview (%.1f s), %d clips, %.0f s of clips | %.1f s | 1.00 |\n",
		recognise.Seconds(), renders.Seconds(), len(clips), clipSeconds, plain.Seconds())
	fmt.Printf("| clipperd pipeline, create to COMPLETE (import, probe, analysis, transcription, curation, captioned renders, .srt/.vtt) | %.1f s | **%.2f** |\n\n",
		pipelineTime.Seconds(), pipelineTime.Seconds()/plain.Seconds())
	return nil
}
