package media

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Probe inspects path with ffprobe. A file without a decodable, timed video stream (text,
// audio only, a still image) yields an error wrapping ErrNotVideo.
func Probe(ctx context.Context, path string) (*ProbeResult, error) {
	// ffprobe fails only when it cannot read the container at all: not a video we can use.
	raw, size, err := ffprobeJSON(ctx, path, func(err error) error { return fmt.Errorf("%w: %v", ErrNotVideo, err) })
	if err != nil {
		return nil, err
	}
	return describe(raw, path, size)
}

// ffprobeJSON is ffprobe's description of path's format and streams, and
// path's size; a file ffprobe cannot read is unreadable's error.
func ffprobeJSON(ctx context.Context, path string, unreadable func(error) error) (*ffprobeOutput, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("probe: %w", err)
	}
	if st.IsDir() {
		return nil, 0, fmt.Errorf("probe %s: is a directory", path)
	}
	var out bytes.Buffer
	args := []string{"-v", "error", "-print_format", "json", "-show_format", "-show_streams", toolexec.LocalURL(path)}
	if err := runTool(ctx, "ffprobe", "ffprobe", args, &out); err != nil {
		if ctx.Err() != nil || errors.Is(err, exec.ErrNotFound) {
			return nil, 0, err
		}
		return nil, 0, unreadable(err)
	}
	var raw ffprobeOutput
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		return nil, 0, fmt.Errorf("probe: parse ffprobe output: %w", err)
	}
	return &raw, st.Size(), nil
}

// sourceInfo is src when the caller has probed path already, else a new probe.
func sourceInfo(ctx context.Context, path string, src *ProbeResult) (*ProbeResult, error) {
	if src == nil {
		return Probe(ctx, path)
	}
	if src.Width <= 0 || src.Height <= 0 || src.DurationSec <= 0 || src.VideoStream < 0 || (src.HasAudio && src.AudioStream < 0) {
		return nil, fmt.Errorf("probe result for %s lacks the picture size, duration or stream indices: pass Probe's result or nil", path)
	}
	return src, nil
}

type ffprobeOutput struct {
	Streams []struct {
		Index        int    `json:"index"`
		CodecType    string `json:"codec_type"`
		CodecName    string `json:"codec_name"`
		Width        int    `json:"width"`
		Height       int    `json:"height"`
		AvgFrameRate string `json:"avg_frame_rate"`
		RFrameRate   string `json:"r_frame_rate"`
		Duration     string `json:"duration"`
		Disposition  struct {
			AttachedPic int `json:"attached_pic"`
		} `json:"disposition"`
		Tags struct {
			Rotate string `json:"rotate"`
		} `json:"tags"`
		SideDataList []struct {
			Rotation float64 `json:"rotation"`
		} `json:"side_data_list"`
	} `json:"streams"`
	Format struct {
		FormatName string `json:"format_name"`
		Duration   string `json:"duration"`
	} `json:"format"`
}

// describe turns ffprobe's report of path (size bytes) into a ProbeResult,
// refusing what is not a timed video.
func describe(raw *ffprobeOutput, path string, size int64) (*ProbeResult, error) {
	info := &ProbeResult{VideoStream: -1, AudioStream: -1}
	info.FormatName = raw.Format.FormatName
	info.SizeBytes = size
	var videoDur float64
	for _, s := range raw.Streams {
		switch {
		case s.CodecType == "video" && s.Disposition.AttachedPic == 0 && info.VideoStream < 0:
			info.VideoStream = s.Index
			info.VideoCodec = s.CodecName
			info.Width, info.Height = s.Width, s.Height
			if quarterTurn(s.Tags.Rotate, s.SideDataList) {
				// ffmpeg auto-rotates on decode, so the picture we work with is turned.
				info.Width, info.Height = s.Height, s.Width
			}
			info.FPS = parseRate(s.AvgFrameRate)
			if info.FPS == 0 {
				info.FPS = parseRate(s.RFrameRate)
			}
			videoDur = parseSeconds(s.Duration)
		case s.CodecType == "audio" && info.AudioStream < 0:
			info.AudioStream = s.Index
			info.AudioCodec = s.CodecName
			info.HasAudio = true
		}
	}
	info.DurationSec = parseSeconds(raw.Format.Duration)
	if info.DurationSec == 0 {
		info.DurationSec = videoDur
	}
	switch {
	case info.VideoStream < 0 && info.HasAudio:
		return nil, fmt.Errorf("%w: %s has only audio (format %s)", ErrNotVideo, path, info.FormatName)
	case info.VideoStream < 0:
		return nil, fmt.Errorf("%w: %s has no video stream (format %s)", ErrNotVideo, path, info.FormatName)
	case info.Width <= 0 || info.Height <= 0:
		return nil, fmt.Errorf("%w: %s: video stream has no picture size", ErrNotVideo, path)
	case info.DurationSec <= 0 || strings.HasSuffix(info.FormatName, "_pipe") || info.FormatName == "image2":
		return nil, fmt.Errorf("%w: %s is a still image or has no duration (format %s)", ErrNotVideo, path, info.FormatName)
	}
	return info, nil
}

func quarterTurn(tag string, side []struct {
	Rotation float64 `json:"rotation"`
}) bool {
	deg, _ := strconv.ParseFloat(tag, 64) // "" or garbage: no rotation
	for _, sd := range side {
		if sd.Rotation != 0 {
			deg = sd.Rotation
		}
	}
	return math.Mod(math.Abs(deg), 180) == 90
}

// parseRate reads ffprobe's "num/den" rates; "0/0" and garbage give 0.
func parseRate(s string) float64 {
	num, den, ok := strings.Cut(s, "/")
	if !ok {
		return parseSeconds(s)
	}
	n, err1 := strconv.ParseFloat(num, 64)
	d, err2 := strconv.ParseFloat(den, 64)
	if err := errors.Join(err1, err2); err != nil || d == 0 {
		return 0
	}
	return n / d
}

// parseSeconds reads a decimal number; "N/A" and garbage give 0.
func parseSeconds(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0
	}
	return v
}
