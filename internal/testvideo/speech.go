package testvideo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// speechRate is espeak-ng's native output rate; the track is assembled at this rate and
// festival's speech resampled to it.
const speechRate = 22050

var sentences = []string{
	"Welcome back to the show, today we are talking about building things that last.",
	"The first thing I learned is that small steps beat big plans every single time.",
	"Honestly, this changed everything for our team!",
	"We shipped the new version on a Friday, which was not our smartest idea.",
	"Let me tell you what happened when the servers went down at midnight.",
	"This is the most important lesson of the whole year, so listen closely!",
	"Good tools make good habits easy and bad habits hard.",
	"Our listeners asked a great question about pricing last week.",
	"If you remember one thing from this episode, remember to measure first.",
	"That was an incredible result, nobody expected it to work so well!",
	"After lunch we reviewed the numbers and found a surprising pattern.",
	"The trick is to write it down before you forget why it mattered.",
	"Three years ago none of this existed, and now millions of people use it.",
	"So here is my advice for anyone just getting started.",
	"Thanks for listening, and see you next week!",
	"Wait, this is the part where everything goes wrong, and it is amazing!",
}

// voiceStyle is one way of speaking; energetic segments are louder and faster so curation has
// something to prefer.
type voiceStyle struct {
	name                    string
	amplitude, speed, pitch int
	weight                  int // relative frequency
}

var styles = []voiceStyle{
	{"normal", 100, 170, 50, 11},
	{"energetic", 190, 205, 72, 5},
	{"calm", 45, 145, 38, 4},
}

// silenceFloor: samples quieter than this are trimmed off a sentence's ends (about -40 dBFS).
const silenceFloor = 330

type synthKey struct{ sentence, style int }

// step is one draw of the plan: what to say next and the pause after it.
type step struct {
	key synthKey
	gap float64
}

// synthesizer speaks each distinct sentence and style once, with one voice.
type synthesizer struct {
	voice string
	dir   string
	cache map[synthKey][]int16
}

func (s *synthesizer) path(k synthKey) string {
	return filepath.Join(s.dir, fmt.Sprintf("s%d-%d.wav", k.sentence, k.style))
}

// speak returns the speech of steps[i], synthesizing it with the uncached ones of the next few
// steps in one batch (festival starts slowly; espeak-ng does not, so it looks no further).
func (s *synthesizer) speak(ctx context.Context, steps []step, i int) ([]int16, error) {
	if pcm, ok := s.cache[steps[i].key]; ok {
		return pcm, nil
	}
	batch, lookahead := s.espeakBatch, 1
	if s.voice == VoiceFestival {
		batch, lookahead = s.festivalBatch, 12
	}
	var keys []synthKey
	seen := map[synthKey]bool{}
	for _, st := range steps[i:min(len(steps), i+lookahead)] {
		if _, ok := s.cache[st.key]; !ok && !seen[st.key] {
			seen[st.key] = true
			keys = append(keys, st.key)
		}
	}
	if err := batch(ctx, keys); err != nil {
		return nil, err
	}
	return s.cache[steps[i].key], nil
}

// load reads the synthesized WAV of k, scales it by gain and trims its quiet ends into the cache.
func (s *synthesizer) load(k synthKey, gain float64) error {
	pcm, rate, err := readWAV(s.path(k))
	if err != nil {
		return err
	}
	if rate != speechRate {
		return fmt.Errorf("testvideo: %s wrote %d Hz, expected %d", s.voice, rate, speechRate)
	}
	if gain != 1 {
		for i, v := range pcm {
			pcm[i] = int16(max(-32768, min(32767, math.Round(float64(v)*gain))))
		}
	}
	pcm = trimQuiet(pcm)
	if len(pcm) == 0 {
		return fmt.Errorf("testvideo: %s produced silence", s.voice)
	}
	s.cache[k] = pcm
	return nil
}

// planSteps draws enough steps for duration: every sentence takes over a second, every pause
// at least 0.8 s.
func planSteps(duration float64) []step {
	rng := newRand(1)
	totalWeight := 0
	for _, st := range styles {
		totalWeight += st.weight
	}
	steps := make([]step, int(duration/1.8)+2)
	for i := range steps {
		k := synthKey{sentence: rng.IntN(len(sentences))}
		for w := rng.IntN(totalWeight); w >= styles[k.style].weight; k.style++ {
			w -= styles[k.style].weight
		}
		steps[i] = step{key: k, gap: 0.8 + 1.7*rng.Float64()}
	}
	return steps
}

// planAudio lays sentences out with pauses of 0.8-2.5 s in voice and returns the layout and the
// mixed track.
func planAudio(ctx context.Context, dir, voice string, duration float64) (*Layout, []int16, error) {
	syn := &synthesizer{voice: voice, dir: dir, cache: map[synthKey][]int16{}}
	total := int(duration*speechRate + 0.5)
	pcm := make([]int16, total)
	layout := &Layout{Voice: voice}

	const tailRoom = 0.4 // keep a short pause before the end
	t := 0.5
	pauseStart := 0.0
	steps := planSteps(duration)
	for i, st := range steps {
		speech, err := syn.speak(ctx, steps, i)
		if err != nil {
			return nil, nil, err
		}
		first := int(t*speechRate + 0.5)
		if first+len(speech) > total-int(tailRoom*speechRate) {
			break
		}
		copy(pcm[first:], speech)
		seg := SpeechSegment{
			Span:  Span{float64(first) / speechRate, float64(first+len(speech)) / speechRate},
			Text:  sentences[st.key.sentence],
			Style: styles[st.key.style].name,
		}
		layout.Pauses = append(layout.Pauses, Span{pauseStart, seg.Start})
		layout.Speech = append(layout.Speech, seg)
		pauseStart = seg.End
		t = seg.End + st.gap
	}
	layout.Pauses = append(layout.Pauses, Span{pauseStart, duration})
	addNoiseFloor(pcm)
	return layout, pcm, nil
}

// addNoiseFloor adds faint deterministic hiss (about -75 dBFS) so pauses are not digital zero,
// as in a real recording.
func addNoiseFloor(pcm []int16) {
	x := uint32(2463534242)
	for i := range pcm {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		v := int32(pcm[i]) + int32(x%11) - 5
		pcm[i] = int16(max(-32768, min(32767, v)))
	}
}

func trimQuiet(pcm []int16) []int16 {
	loud := func(v int16) bool { return v > silenceFloor || v < -silenceFloor }
	start, end := 0, len(pcm)
	for start < end && !loud(pcm[start]) {
		start++
	}
	for end > start && !loud(pcm[end-1]) {
		end--
	}
	return pcm[start:end]
}

// readWAV reads a 16-bit mono PCM WAV file.
func readWAV(path string) ([]int16, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("testvideo: read wav: %w", err)
	}
	if len(data) < 12 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return nil, 0, fmt.Errorf("testvideo: %s is not a WAV file", path)
	}
	rate := 0
	for off := 12; off+8 <= len(data); {
		id := string(data[off : off+4])
		size := int(binary.LittleEndian.Uint32(data[off+4 : off+8]))
		body := data[off+8:]
		switch id {
		case "fmt ":
			if size < 16 || len(body) < 16 {
				return nil, 0, errors.New("testvideo: short WAV fmt chunk")
			}
			format, channels := binary.LittleEndian.Uint16(body[0:]), binary.LittleEndian.Uint16(body[2:])
			bits := binary.LittleEndian.Uint16(body[14:])
			if format != 1 || channels != 1 || bits != 16 {
				return nil, 0, fmt.Errorf("testvideo: WAV must be 16-bit mono PCM (format %d, %d channels, %d bits)", format, channels, bits)
			}
			rate = int(binary.LittleEndian.Uint32(body[4:]))
		case "data":
			if rate == 0 {
				return nil, 0, errors.New("testvideo: WAV data before fmt chunk")
			}
			// A streaming writer may leave a placeholder size: trust the file length.
			size = min(size, len(body)) &^ 1
			pcm := make([]int16, size/2)
			for i := range pcm {
				pcm[i] = int16(binary.LittleEndian.Uint16(body[2*i:]))
			}
			return pcm, rate, nil
		}
		off += 8 + size + size&1
	}
	return nil, 0, fmt.Errorf("testvideo: %s has no data chunk", path)
}

func writeWAV(path string, pcm []int16, rate int) error {
	buf := make([]byte, 44+2*len(pcm))
	copy(buf[0:], "RIFF")
	binary.LittleEndian.PutUint32(buf[4:], uint32(36+2*len(pcm)))
	copy(buf[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(buf[16:], 16)
	binary.LittleEndian.PutUint16(buf[20:], 1) // PCM
	binary.LittleEndian.PutUint16(buf[22:], 1) // mono
	binary.LittleEndian.PutUint32(buf[24:], uint32(rate))
	binary.LittleEndian.PutUint32(buf[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(buf[32:], 2)
	binary.LittleEndian.PutUint16(buf[34:], 16)
	copy(buf[36:], "data")
	binary.LittleEndian.PutUint32(buf[40:], uint32(2*len(pcm)))
	for i, v := range pcm {
		binary.LittleEndian.PutUint16(buf[44+2*i:], uint16(v))
	}
	if err := os.WriteFile(path, buf, 0o600); err != nil {
		return fmt.Errorf("testvideo: write wav: %w", err)
	}
	return nil
}
