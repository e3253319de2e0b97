package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

// runTranscribe measures clipperd's recogniser on a generated source with
// festival speech: its wall time against the audio's length, and against one
// plain `pocketsphinx_continuous` run over the same audio, alternating the
// two so both see the same machine.
func runTranscribe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("transcribe", flag.ContinueOnError)
	length := fs.Duration("source", 10*time.Minute, "length of the generated source video")
	runs := fs.Int("runs", 1, "runs of each, alternated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "clipper-bench-transcribe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "source.mp4")
	layout, err := testvideo.GenerateWithLayout(ctx, src, testvideo.Options{Duration: *length, Voice: testvideo.VoiceFestival})
	if err != nil {
		return err
	}
	wav := filepath.Join(work, "audio.wav")
	if err := transcribe.ExtractWAV(ctx, src, 0, 0, wav); err != nil {
		return err
	}

	var ours, plain []time.Duration
	var words int
	for range *runs {
		start := time.Now()
		w, err := (&transcribe.Pocketsphinx{}).Transcribe(ctx, wav, "en")
		if err != nil {
			return err
		}
		ours, words = append(ours, time.Since(start)), len(w)
		start = time.Now()
		cmd := exec.CommandContext(ctx, transcribe.PocketsphinxTool, "-infile", wav, "-time", "yes", "-logfn", "/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("plain pocketsphinx_continuous: %w\n%s", err, out)
		}
		plain = append(plain, time.Since(start))
	}
	o, p := median(ours), median(plain)
	spoken := 0
	for _, s := range layout.Speech {
		spoken += len(strings.Fields(s.Text))
	}
	fmt.Printf("### Transcription of a generated %s source with festival speech (%d runs each, medians)\n\n", *length, *runs)
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| audio length | %.1f s (%d words spoken, %d recognised) |\n", length.Seconds(), spoken, words)
	fmt.Printf("| clipperd's recogniser (chunks at pauses, %d in parallel) | %.1f s |\n", runtime.NumCPU(), o.Seconds())
	fmt.Printf("| one plain `pocketsphinx_continuous -infile` run | %.1f s |\n", p.Seconds())
	fmt.Printf("| **clipperd / real time** | **%.2f** |\n", o.Seconds()/length.Seconds())
	fmt.Printf("| plain run / real time | %.2f |\n", p.Seconds()/length.Seconds())
	fmt.Printf("| **clipperd / plain run** | **%.2f** |\n", o.Seconds()/p.Seconds())
	return nil
}
