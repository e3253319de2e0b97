package testvideo

import "math/rand/v2"

// Span is a stretch of the generated video in seconds.
type Span struct{ Start, End float64 }

// SpeechSegment is one synthesized sentence as placed in the audio track.
type SpeechSegment struct {
	Span
	Text  string // the sentence said
	Style string // "normal", "energetic" (louder, faster) or "calm" (quieter, slower)
}

// Scene is one stretch of picture between two cuts; CenterX (0..1) is where its moving
// element oscillates around.
type Scene struct {
	Span
	CenterX float64
}

// Layout is where Generate put things: the ground truth for tests of an analysis.
type Layout struct {
	Voice  string          // the voice that spoke: VoiceFestival or VoiceEspeak
	Speech []SpeechSegment // ordered, non-overlapping
	Pauses []Span          // the silences around and between the speech segments
	Scenes []Scene         // ordered, covering the whole duration; cuts at each Start but the first
}

// SceneCuts lists the times of the cuts between scenes.
func (l *Layout) SceneCuts() []float64 {
	var cuts []float64
	for i := 1; i < len(l.Scenes); i++ {
		cuts = append(cuts, l.Scenes[i].Start)
	}
	return cuts
}

// newRand gives every generator the same fixed sequence: the layout depends only on the options.
func newRand(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(0x636c6970706572, stream))
}

// planScenes cuts the picture every 2.5-6 s on a frame boundary.
func planScenes(duration float64) []Scene {
	rng := newRand(2)
	centers := []float64{0.22, 0.5, 0.78, 0.32, 0.68}
	var scenes []Scene
	t := 0.0
	for t < duration-1e-9 {
		frames := int((2.5 + 3.5*rng.Float64()) * frameRate)
		end := t + float64(frames)/frameRate
		if end > duration || duration-end < 1.0 {
			end = duration // no sliver of a scene at the end
		}
		scenes = append(scenes, Scene{Span: Span{t, end}, CenterX: centers[rng.IntN(len(centers))]})
		t = end
	}
	return scenes
}
