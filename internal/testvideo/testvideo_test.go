package testvideo

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func requireTools(t *testing.T) {
	t.Helper()
	toolexectest.RequireMedia(t)
}

func TestGenerateWritesTheLayoutItReports(t *testing.T) {
	requireTools(t)
	// The best installed voice, and espeak-ng, the fallback where festival is missing.
	for _, voice := range []string{"", VoiceEspeak} {
		t.Run("voice="+voice, func(t *testing.T) { testLayout(t, voice) })
	}
}

func testLayout(t *testing.T, voice string) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.mp4")
	opts := Options{Duration: 30 * time.Second, Voice: voice}
	layout, err := GenerateWithLayout(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if layout.Voice == "" || voice != "" && layout.Voice != voice {
		t.Errorf("layout voice %q, asked for %q", layout.Voice, voice)
	}

	p := ffprobe(t, path)
	if math.Abs(p.duration-30) > 0.05 {
		t.Errorf("duration %.3f, want 30", p.duration)
	}
	if p.video != "h264" || p.audio != "aac" || p.pixFmt != "yuv420p" || p.width != 320 || p.height != 240 {
		t.Errorf("got %s %s %dx%d + %s, want h264 yuv420p 320x240 + aac", p.video, p.pixFmt, p.width, p.height, p.audio)
	}
	if !p.faststart {
		t.Error("moov atom is not before mdat: +faststart missing")
	}

	if len(layout.Speech) < 4 {
		t.Fatalf("only %d sentences in 30 s", len(layout.Speech))
	}
	styles := map[string]bool{}
	for i, sp := range layout.Speech {
		styles[sp.Style] = true
		if sp.End <= sp.Start || sp.Text == "" {
			t.Errorf("segment %d: %+v", i, sp)
		}
		if i > 0 {
			gap := sp.Start - layout.Speech[i-1].End
			if gap < 0.8-1e-6 || gap > 2.5+1e-6 {
				t.Errorf("pause before segment %d is %.3f s, want 0.8-2.5", i, gap)
			}
		}
	}
	if !styles["energetic"] || len(styles) < 2 {
		t.Errorf("styles %v: want variety including energetic segments", styles)
	}
	// Pauses are exactly the complement of speech over the whole duration.
	if len(layout.Pauses) != len(layout.Speech)+1 || layout.Pauses[0].Start != 0 || layout.Pauses[len(layout.Pauses)-1].End != 30 {
		t.Fatalf("pauses %v do not frame %d segments over 0-30", layout.Pauses, len(layout.Speech))
	}
	for i, sp := range layout.Speech {
		if layout.Pauses[i].End != sp.Start || layout.Pauses[i+1].Start != sp.End {
			t.Errorf("segment %d %.2f-%.2f is not between pauses %v and %v", i, sp.Start, sp.End, layout.Pauses[i], layout.Pauses[i+1])
		}
	}
	// Scenes tile the duration, cut on frame boundaries, with off-centre subjects among them.
	offCentre := false
	for i, sc := range layout.Scenes {
		if i > 0 && sc.Start != layout.Scenes[i-1].End {
			t.Errorf("scene %d starts at %.3f, previous ends at %.3f", i, sc.Start, layout.Scenes[i-1].End)
		}
		if f := sc.Start * frameRate; math.Abs(f-math.Round(f)) > 1e-6 {
			t.Errorf("cut at %.4f is not on a frame boundary", sc.Start)
		}
		offCentre = offCentre || math.Abs(sc.CenterX-0.5) > 0.2
	}
	if len(layout.Scenes) < 4 || layout.Scenes[0].Start != 0 || layout.Scenes[len(layout.Scenes)-1].End != 30 || !offCentre {
		t.Errorf("scenes %v: want several, covering 0-30, some off-centre", layout.Scenes)
	}
	if got := len(layout.SceneCuts()); got != len(layout.Scenes)-1 {
		t.Errorf("%d cuts for %d scenes", got, len(layout.Scenes))
	}

	// Loud where the layout says speech, quiet in pauses: the audio really follows the layout.
	mid := layout.Speech[0]
	speechDB := meanVolume(t, path, (mid.Start+mid.End)/2-0.5, 1)
	pause := layout.Pauses[1]
	pauseDB := meanVolume(t, path, (pause.Start+pause.End)/2-0.2, 0.4)
	if speechDB < -40 || pauseDB > -60 {
		t.Errorf("mean volume %.1f dB in speech, %.1f dB in a pause; want speech and near silence", speechDB, pauseDB)
	}

	// Deterministic: the same options give the same bytes.
	again := filepath.Join(dir, "b.mp4")
	if err := Generate(context.Background(), again, opts); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("two generations with the same options differ")
	}
}

func TestGenerateRejectsBadOptions(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{}, "Duration"},
		{Options{Duration: 500 * time.Millisecond}, "Duration"},
		{Options{Duration: 10 * time.Second, Width: 321, Height: 240}, "even"},
		{Options{Duration: 10 * time.Second, Width: 8, Height: 8}, "between 16 and 4096"},
		{Options{Duration: 10 * time.Second, Voice: "robot"}, "Voice"},
	} {
		err := Generate(context.Background(), filepath.Join(t.TempDir(), "x.mp4"), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", c.opts, err, c.want)
		}
	}
}

func TestGenerateHonoursCancellation(t *testing.T) {
	requireTools(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "x.mp4")
	if err := Generate(ctx, path, Options{Duration: 10 * time.Second}); err == nil {
		t.Fatal("cancelled generation succeeded")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a cancelled generation left a file behind")
	}
}

type probed struct {
	duration             float64
	video, audio, pixFmt string
	width, height        int
	faststart            bool
}

func ffprobe(t *testing.T, path string) probed {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", path).Output()
	if err != nil {
		t.Fatalf("ffprobe: %v", err)
	}
	var raw struct {
		Streams []struct {
			CodecType string `json:"codec_type"`
			CodecName string `json:"codec_name"`
			PixFmt    string `json:"pix_fmt"`
			Width     int    `json:"width"`
			Height    int    `json:"height"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	var p probed
	p.duration, _ = strconv.ParseFloat(raw.Format.Duration, 64)
	for _, s := range raw.Streams {
		switch s.CodecType {
		case "video":
			p.video, p.pixFmt, p.width, p.height = s.CodecName, s.PixFmt, s.Width, s.Height
		case "audio":
			p.audio = s.CodecName
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	moov, mdat := bytes.Index(data, []byte("moov")), bytes.Index(data, []byte("mdat"))
	p.faststart = moov >= 0 && mdat >= 0 && moov < mdat
	return p
}

// meanVolume measures the mean volume of the audio from start for length seconds.
func meanVolume(t *testing.T, path string, start, length float64) float64 {
	t.Helper()
	cmd := exec.Command("ffmpeg", "-hide_banner", "-nostats", "-ss", strconv.FormatFloat(start, 'f', 3, 64),
		"-t", strconv.FormatFloat(length, 'f', 3, 64), "-i", path, "-vn", "-af", "volumedetect", "-f", "null", "-")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("volumedetect: %v: %s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "mean_volume:")
	if !ok {
		t.Fatalf("no mean_volume in %s", out)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.Fields(after)[0], "dB")), 64)
	if err != nil {
		t.Fatalf("parse mean volume: %v", err)
	}
	return v
}
