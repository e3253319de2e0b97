// Package media wraps ffprobe and ffmpeg: probing a source, analysing it in one decode pass,
// picking highlights from the analysis, and rendering clips.
package media

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotVideo is wrapped when the input has no decodable video stream.
var ErrNotVideo = errors.New("input is not a video")

// ProbeResult describes a media file as ffprobe sees it. Analyze and
// RenderClip accept one for their source, so a source is probed once.
type ProbeResult struct {
	DurationSec                        float64
	Width, Height                      int // of the picture as decoded (rotation applied)
	FPS                                float64
	HasAudio                           bool
	SizeBytes                          int64
	VideoCodec, AudioCodec, FormatName string
	// VideoStream and AudioStream are the ffprobe stream indices used;
	// AudioStream is -1 without audio.
	VideoStream, AudioStream int
}

// Interval is a span of source time in seconds.
type Interval struct{ Start, End float64 }

// Analysis is the result of ONE decode pass over the source (audio loudness per window,
// speech vs silence, scene cuts, and a horizontal centre of interest per window).
type Analysis struct {
	DurationSec float64
	WindowSec   float64    // width of each per-window sample
	LoudnessDB  []float64  // per window: RMS level in dBFS
	Speech      []bool     // per window: speech-like (voiced) vs silence
	Silences    []Interval // detected pauses
	SceneCuts   []float64  // timestamps of scene changes
	CenterX     []float64  // per window, 0..1 horizontal centre of interest (0.5 when unknown)
	// Shots are the spans between scene cuts, in order, covering the source,
	// each with the faces found in it (see Shot).
	Shots []Shot
	// Follow is the speaker-following path of the crop's centre, in source
	// seconds: smoothed (a dead zone, a bounded pan speed), jumping only at
	// a shot cut. Empty when no shot has a face: renders fall back to CenterX.
	Follow []PathKey
}

// FaceBox is a face, in fractions of the source picture: X and Y its
// centre (of the width, of the height), Size its side (of the height), its
// median place over the shot. Path is where a panel that shows it centres
// its crop over the shot when the face moves (source seconds; nil when it
// stays put: the panel holds still around X).
type FaceBox struct {
	X, Y, Size float64
	Path       []PathKey `json:",omitempty"`
}

// Shot is a span of the source between two cuts and the faces that stay in
// it (tracked over its sampled frames; a face seen in a few samples only is
// not one), largest first, at most four, each at its median place.
type Shot struct {
	Start, End float64 // source seconds
	Faces      []FaceBox
	// Speaker is the index in Faces of the face that speaks, when the
	// picture can tell (mouth movement); -1 when it cannot.
	Speaker int
}

// PathKey is where the crop's horizontal centre is (X, 0..1 of the source
// width) at source time T; between keys it moves linearly.
type PathKey struct{ T, X float64 }

// CurateOptions steers PickHighlights.
type CurateOptions struct {
	Range      *Interval    // nil = whole video
	Durations  [][2]float64 // allowed clip lengths [min,max] seconds; empty = [[15,60]]
	WholeRange bool         // skipCurate/skipSlicing: one clip of the whole range
	// Words is the transcript of the range in source seconds, in spoken order; with words,
	// clips are runs of whole sentences (see PickHighlights). Empty: clips from the audio alone.
	Words []Word
	// Keywords raise the score of clips that say them (topicKeywords, customPrompt's words);
	// used with Words only. Each is split into words; words under 3 letters are ignored.
	Keywords []string
}

// Word is one recognised word; Start and End are seconds in the source.
type Word struct {
	Text       string
	Start, End float64
}

// Highlight is one chosen clip of the source.
type Highlight struct {
	Start, End float64 // seconds in the source
	Score      float64
	CenterX    float64 // mean centre of interest over the clip, 0..1
}

// RenderOptions steers RenderClip.
type RenderOptions struct {
	Aspect        string // "portrait" 1080x1920, "square" 1080x1080, "landscape" 1920x1080
	Fit           bool   // with Layout "" and no Follow: true fits the whole frame on a blurred background, false crops around CenterX
	Watermark     string // "" = none; else drawn text
	PreviewHeight int    // preview render height, default 480
	// Captions, when set and holding lines, are burnt into the picture after the reframe.
	Captions *Captions
	// Hook, when set with text, is the headline over the clip's first seconds (hook.go).
	Hook *Hook
	// Emoji, when set, overlays colour emoji for the key words spoken (emoji.go).
	Emoji *Emoji
	// Keep, when set, are the pieces of the highlight (source seconds, in order, see
	// KeptRanges) the clip is made of, joined with short audio fades; the rest is cut.
	Keep []Interval
	// Source is the source as Probe described it, so rendering many clips of
	// one source does not probe it for each; nil probes it.
	Source *ProbeResult
	// Layout is how the picture is arranged (the Layout* constants); "" is
	// LayoutFollow when Follow has keys, else the crop around the highlight's
	// CenterX (or the fit when Fit is set).
	Layout string
	// Shots and Follow are the source's (Analysis.Shots, Analysis.Follow),
	// in source seconds: the render takes the part its clip covers.
	Shots  []Shot
	Follow []PathKey
	// FitCropRatio (w/h; 0 none) is fitLayoutCropRatio: the fit layout shows the
	// largest box of this ratio around the centre of interest instead of the
	// whole picture.
	FitCropRatio float64
	// Voice runs the clip's speech through the enhancement chain (voice.go).
	Voice bool
	// Transitions are drawn between the clip's pieces (transitions.go); ClipJoins says where.
	Transitions Transitions
	// Broll are the clip's cut-aways (PlanBroll), Overlays the pictures drawn
	// over all of it; both under the captions (broll.go, overlay.go).
	Broll    []BrollCut
	Overlays []Overlay
	// EncodePreset is x264's preset for the export and the preview (one of
	// EncodePresets); "" is DefaultEncodePreset. It trades the machine's time
	// for the files' size, not the picture: it is the process's setting, so it
	// is no part of a clip's render (a piece's spec) either.
	EncodePreset string `json:"-"`
}

// DefaultEncodePreset is RenderOptions.EncodePreset's default. On a 15 s
// portrait clip ultrafast takes about a third of its CPU time, for files
// about 2.7 times larger.
const DefaultEncodePreset = "veryfast"

// EncodePresets are x264's presets, fastest first: each takes more time for
// smaller files at the same quality (the CRF).
var EncodePresets = []string{"ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"}

// CheckEncodePreset refuses a preset x264 does not have ("" is the default).
func CheckEncodePreset(name string) error {
	if name == "" || slices.Contains(EncodePresets, name) {
		return nil
	}
	return fmt.Errorf("encode preset %q: want one of %s", name, strings.Join(EncodePresets, ", "))
}

// The layouts of a render (renderPref's layout flags resolve to one).
const (
	LayoutFollow = "follow" // crop following the speaker's face (the default)
	LayoutCenter = "center" // one fixed crop around the highlight's centre of interest (skipReframe)
	LayoutFit    = "fit"    // the whole picture over a blurred fill of itself
	LayoutSplit  = "split"  // two faces, each cropped around itself, stacked
	LayoutThree  = "three"  // three faces in a grid
	LayoutFour   = "four"   // four faces in a grid
	LayoutScreen = "screen" // the screen (source minus the face region) above, the face below
	LayoutGame   = "game"   // the gameplay full width above, the face camera below
	LayoutAuto   = "auto"   // per shot, the layout that fits what is in it
)

// RenderResult reports what RenderClip wrote.
type RenderResult struct {
	ExportBytes, PreviewBytes int64
	DurationSec               float64
}
