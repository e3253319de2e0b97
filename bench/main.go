// Command bench measures clipperd and the provider side by side and prints
// Markdown for BENCHMARKS.md. Run from the repository root:
//
//	go run ./bench pipeline   # analysis pass vs plain decode; pipeline vs plain ffmpeg commands (-pipeline-only: the latter; bench/longsource.sh: two revisions on one long source)
//	go run ./bench apply      # terraform apply of 8 clip projects against clipperd's default limits (--projects 20)
//	go run ./bench upload     # a 2 GiB source_file upload against curl -T to the same server
//	go run ./bench refresh    # API calls of a terraform plan over 4 projects, 20 collections and 40 contents, against clipperd and a small-page server
//	go run ./bench transcribe # the recogniser against real time and one plain pocketsphinx run
//	go run ./bench pipeline-asr # the pipeline with transcription and captions against plain commands
//	go run ./bench censor     # the censor's keyword spotting: profane words found, false alarms on clean speech (--tune: find the thresholds)
//	go run ./bench load --before REV # a clipperd binary under concurrent GETs, uploads and idle connections
//	go run ./bench realmedia  # faces, voice, recogniser and captions on real recordings (scripts/realmedia-fetch.sh)
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench pipeline|pipeline-asr|apply|refresh|transcribe|censor|upload|load|realmedia [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "pipeline":
		err = runPipeline(ctx, os.Args[2:])
	case "apply":
		err = runApply(ctx, os.Args[2:])
	case "refresh":
		err = runRefresh(ctx, os.Args[2:])
	case "transcribe":
		err = runTranscribe(ctx, os.Args[2:])
	case "pipeline-asr":
		err = runPipelineASR(ctx, os.Args[2:])
	case "censor":
		err = runCensor(ctx, os.Args[2:])
	case "load":
		err = runLoad(ctx, os.Args[2:])
	case "upload":
		err = runUpload(ctx, os.Args[2:])
	case "realmedia":
		err = runRealMedia(ctx, os.Args[2:])
	case "upload-child": // the provider's side of upload, in its own process
		err = runUploadChild(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown benchmark %q (want pipeline, pipeline-asr, apply, refresh, transcribe, censor, upload, load or realmedia)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
