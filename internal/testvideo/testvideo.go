// Package testvideo generates deterministic H.264/AAC test videos with real speech (festival's
// HTS voice when installed, else espeak-ng) separated by pauses, and a picture with scene cuts
// and a moving element.
package testvideo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Options sets the length, size and voice of a generated video.
type Options struct {
	Duration      time.Duration // total length, e.g. 40*time.Second
	Width, Height int           // default 320x240
	Voice         string        // VoiceFestival, VoiceEspeak or "" for the best installed
}

const (
	defaultWidth  = 320
	defaultHeight = 240
	frameRate     = 25
	minDuration   = time.Second
	maxDuration   = 3 * time.Hour
)

// Generate writes an H.264/AAC MP4 at path with real speech (sentences separated by silences)
// and a picture with scene cuts. Deterministic for the same options and voice.
func Generate(ctx context.Context, path string, opts Options) error {
	_, err := GenerateWithLayout(ctx, path, opts)
	return err
}

// GenerateWithLayout is Generate that also reports where the speech, pauses and scene cuts
// were placed, so tests can compare an analysis with the truth.
func GenerateWithLayout(ctx context.Context, path string, opts Options) (*Layout, error) {
	opts, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return nil, fmt.Errorf("testvideo: ffmpeg is required: %w", err)
	}
	voice, err := resolveVoice(opts.Voice)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "testvideo-")
	if err != nil {
		return nil, fmt.Errorf("testvideo: temp dir: %w", err)
	}
	defer os.RemoveAll(work)

	layout, pcm, err := planAudio(ctx, work, voice, opts.Duration.Seconds())
	if err != nil {
		return nil, err
	}
	wavPath := filepath.Join(work, "speech.wav")
	if err := writeWAV(wavPath, pcm, speechRate); err != nil {
		return nil, err
	}
	layout.Scenes = planScenes(opts.Duration.Seconds())
	if err := encode(ctx, path, wavPath, opts, layout.Scenes); err != nil {
		return nil, err
	}
	return layout, nil
}

func (o Options) normalized() (Options, error) {
	if o.Width == 0 && o.Height == 0 {
		o.Width, o.Height = defaultWidth, defaultHeight
	}
	switch {
	case o.Duration < minDuration || o.Duration > maxDuration:
		return o, fmt.Errorf("testvideo: Duration must be between %s and %s, got %s", minDuration, maxDuration, o.Duration)
	case o.Width < 16 || o.Height < 16 || o.Width > 4096 || o.Height > 4096:
		return o, fmt.Errorf("testvideo: Width and Height must be between 16 and 4096, got %dx%d", o.Width, o.Height)
	case o.Width%2 != 0 || o.Height%2 != 0:
		return o, errors.New("testvideo: Width and Height must be even (yuv420p)")
	case o.Voice != "" && o.Voice != VoiceFestival && o.Voice != VoiceEspeak:
		return o, fmt.Errorf("testvideo: Voice must be %q, %q or empty, got %q", VoiceFestival, VoiceEspeak, o.Voice)
	}
	return o, nil
}
