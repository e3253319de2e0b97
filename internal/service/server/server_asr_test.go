package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// An explicit --asr pocketsphinx without the program is a startup warning
// and no transcripts, never a failure of each project.
func TestMissingPocketsphinxFallsBackToNone(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var logs bytes.Buffer
	asr, err := newTranscriber(Config{ASR: transcribe.KindPocketsphinx}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := asr.(transcribe.None); !ok {
		t.Fatalf("recogniser = %T, want transcribe.None", asr)
	}
	if got := asr.Describe(); got != "none (pocketsphinx_continuous not found)" {
		t.Errorf("Describe = %q", got)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "pocketsphinx_continuous is not on PATH") {
		t.Errorf("no startup warning in %q", logs.String())
	}
}
