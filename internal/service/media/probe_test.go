package media

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestProbeGeneratedVideo(t *testing.T) {
	t.Parallel()
	src, _ := sourceVideo(t, 60, 320, 240)
	p, err := Probe(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.DurationSec-60) > 0.1 {
		t.Errorf("duration %.3f, want 60", p.DurationSec)
	}
	if p.Width != 320 || p.Height != 240 {
		t.Errorf("size %dx%d, want 320x240", p.Width, p.Height)
	}
	if math.Abs(p.FPS-25) > 0.01 {
		t.Errorf("fps %.3f, want 25", p.FPS)
	}
	if !p.HasAudio || p.AudioCodec != "aac" || p.VideoCodec != "h264" {
		t.Errorf("streams: audio=%v %q video %q, want aac + h264", p.HasAudio, p.AudioCodec, p.VideoCodec)
	}
	st, _ := os.Stat(src)
	if p.SizeBytes != st.Size() || p.SizeBytes == 0 {
		t.Errorf("size %d bytes, file has %d", p.SizeBytes, st.Size())
	}
}

func TestProbeRejectsNonVideo(t *testing.T) {
	t.Parallel()
	requireFFmpeg(t)
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("this is not a video\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	audio := filepath.Join(dir, "tone.m4a")
	out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=d=2", "-c:a", "aac", audio).CombinedOutput()
	if err != nil {
		t.Fatalf("make audio fixture: %v: %s", err, out)
	}
	for _, path := range []string{text, audio} {
		_, err := Probe(context.Background(), path)
		if !errors.Is(err, ErrNotVideo) {
			t.Errorf("Probe(%s) = %v, want ErrNotVideo", filepath.Base(path), err)
		}
		if _, err := Analyze(context.Background(), path); !errors.Is(err, ErrNotVideo) {
			t.Errorf("Analyze(%s) = %v, want ErrNotVideo", filepath.Base(path), err)
		}
	}
	_, err = Probe(context.Background(), filepath.Join(dir, "missing.mp4"))
	if err == nil || errors.Is(err, ErrNotVideo) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Probe(missing) = %v, want a not-exist error", err)
	}
}
