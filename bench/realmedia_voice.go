package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/media"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

func init() { registerRealMedia("voice", runVoiceSection) }

// voiceSource is one noisy source of the section: real voices with noise mixed in, or a
// recording that came noisy.
type voiceSource struct {
	name string
	make func(ctx context.Context, dir, work string) (*testvideo.NoisySpeech, error)
	core bool // every candidate chain runs on it, not only before and after
}

func voiceSources() []voiceSource {
	c2 := func(dir string, names ...string) []string {
		var p []string
		for _, n := range names {
			p = append(p, filepath.Join(dir, "speech", "codec2", n+".wav"))
		}
		return p
	}
	mix := func(name string, core bool, m func(dir string) testvideo.SpeechMix) voiceSource {
		return voiceSource{name, func(ctx context.Context, dir, work string) (*testvideo.NoisySpeech, error) {
			return testvideo.MixSpeech(ctx, work, strings.NewReplacer(" ", "_", ",", "", "/", "_").Replace(name), m(dir))
		}, core}
	}
	rec := func(name, file string, start, dur float64, core bool) voiceSource {
		return voiceSource{name, func(ctx context.Context, dir, work string) (*testvideo.NoisySpeech, error) {
			return testvideo.RecordedSpeech(ctx, work, strings.TrimSuffix(filepath.Base(file), ".wav"), filepath.Join(dir, "speech", file), start, dur)
		}, core}
	}
	jfk := func(dir string) []string { return []string{filepath.Join(dir, "speech", "jfk.wav")} }
	hello := func(dir string) []string { return []string{filepath.Join(dir, "speech", "hello16000.wav")} }
	// The codec2 voices one after the other: a man and a woman, with pauses between.
	seq := func(dir string) []string { return c2(dir, "morig", "forig", "hts1a", "big_dog", "hts2a", "cross") }
	babble := func(dir string) []string { return c2(dir, "mmt1", "david4", "m2400", "f2400", "all") }
	return []voiceSource{
		mix("jfk, pink -30 dB", true, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: jfk(d), Gap: 0.8, Noise: testvideo.NoisePink, SpeechDB: -26, SNRDB: 30, Rate: 16000}
		}),
		mix("codec2 voices, pink -30 dB", false, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: seq(d), Gap: 0.7, Noise: testvideo.NoisePink, SpeechDB: -26, SNRDB: 30, Rate: 8000}
		}),
		mix("hello16000, babble -25 dB", true, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: hello(d), Gap: 0.8, Noise: testvideo.NoiseBabble, Babble: babble(d), SpeechDB: -26, SNRDB: 25, Rate: 16000}
		}),
		mix("jfk, babble -25 dB", false, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: jfk(d), Gap: 0.8, Noise: testvideo.NoiseBabble, Babble: babble(d), SpeechDB: -26, SNRDB: 25, Rate: 16000}
		}),
		mix("codec2 voices, babble -25 dB", false, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: seq(d), Gap: 0.7, Noise: testvideo.NoiseBabble, Babble: c2(d, "mmt1", "david4", "m2400", "f2400", "vk5qi"), SpeechDB: -26, SNRDB: 25, Rate: 8000}
		}),
		rec("ve9qrp (HF radio, 112 s)", "codec2/ve9qrp.wav", 0, 120, true),
		rec("vk5qi (HF radio)", "codec2/vk5qi.wav", 0, 13.5, false),
		rec("vk2tpm_004 (HF radio)", "codec2/vk2tpm_004.wav", 0, 35, false),
		// The chain must hold whatever the noise floor, the level and the format.
		mix("jfk, pink -20 dB", false, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: jfk(d), Gap: 0.8, Noise: testvideo.NoisePink, SpeechDB: -26, SNRDB: 20, Rate: 16000}
		}),
		mix("jfk quiet (-45 dBFS), pink -30 dB", false, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: jfk(d), Gap: 0.8, Noise: testvideo.NoisePink, SpeechDB: -45, SNRDB: 30, Rate: 16000}
		}),
		mix("jfk loud (-12 dBFS), pink -30 dB", false, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: jfk(d), Gap: 0.8, Noise: testvideo.NoisePink, SpeechDB: -12, SNRDB: 30, Rate: 16000}
		}),
		mix("jfk stereo 48 kHz, pink -30 dB", false, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: jfk(d), Gap: 0.8, Noise: testvideo.NoisePink, SpeechDB: -26, SNRDB: 30, Rate: 48000, Channels: 2}
		}),
		mix("codec2 voices 44.1 kHz, white -35 dB", false, func(d string) testvideo.SpeechMix {
			return testvideo.SpeechMix{Voices: seq(d), Gap: 0.7, Noise: testvideo.NoiseWhite, SpeechDB: -26, SNRDB: 35, Rate: 44100}
		}),
	}
}

// voiceCandidate is one chain the section measures.
type voiceCandidate struct {
	name    string
	variant media.VoiceVariant
}

var voiceCandidates = []voiceCandidate{
	{"BEFORE: afftdn at the trough + 6 dB", media.VoiceBefore},
	{"afftdn at the pauses' level, tracking", media.VoiceVariant{Denoise: media.VoiceDenoiseTrack}},
	{"afftdn, noise profile learned over the quietest 0.4 s", media.VoiceVariant{Denoise: media.VoiceDenoiseProfile}},
	{"anlmdn", media.VoiceVariant{Denoise: media.VoiceDenoiseNLM}},
	{"afftdn trough + gate", media.VoiceVariant{Denoise: media.VoiceDenoiseTrough, Gate: true}},
	{"afftdn tracking + gate", media.VoiceVariant{Denoise: media.VoiceDenoiseTrack, Gate: true}},
	{"afftdn learned profile + gate", media.VoiceVariant{Denoise: media.VoiceDenoiseProfile, Gate: true}},
	{"anlmdn + gate", media.VoiceVariant{Denoise: media.VoiceDenoiseNLM, Gate: true}},
}

// runVoiceSection enhances each source with the chain before and after (and, on the core
// sources, every candidate) as a render does (the chain, then AAC), and measures the output.
func runVoiceSection(ctx context.Context, dir, work string) (string, error) {
	var main, cands strings.Builder
	main.WriteString("| source | chain | speech/pause SNR dB (gain) | worst pause vs source dB | LUFS | true peak dBTP | speech corr. with clean | soft speech frames cut |\n|---|---|---|---|---|---|---|---|\n")
	cands.WriteString("| source | candidate | SNR gain dB | worst pause dB | LUFS | true peak dBTP | speech corr. | cut |\n|---|---|---|---|---|---|---|---|\n")
	for i, s := range voiceSources() {
		sw := filepath.Join(work, fmt.Sprint(i))
		if err := os.MkdirAll(sw, 0o755); err != nil {
			return "", err
		}
		src, err := s.make(ctx, dir, sw)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.name, err)
		}
		for k, c := range voiceCandidates {
			isDefault := c.variant == media.DefaultVoice
			if !s.core && k > 0 && !isDefault {
				continue
			}
			f, err := enhanceAndMeasure(ctx, src, c.variant, filepath.Join(sw, fmt.Sprintf("out%d.m4a", k)))
			if err != nil {
				return "", fmt.Errorf("%s, %s: %w", s.name, c.name, err)
			}
			fmt.Fprintln(os.Stderr, "voice:", s.name, "|", c.name, "|", voiceRow(f))
			if k == 0 || isDefault {
				label := "BEFORE"
				if isDefault {
					label = "AFTER"
				}
				snr, pause := fmt.Sprintf("%.1f -> %.1f (%+.1f)", f.SNRBefore, f.SNRAfter, f.SNRAfter-f.SNRBefore), fmt.Sprintf("%+.1f", f.WorstPauseDB)
				if math.IsNaN(f.SNRBefore) {
					snr, pause = "no pause (noise as loud as the voice)", "-"
				}
				fmt.Fprintf(&main, "| %s | %s | %s | %s | %.1f | %.1f | %s -> %s | %.1f%% |\n", s.name, label,
					snr, pause, f.LUFS, f.TruePeak, corr(f.CorrBefore), corr(f.CorrAfter), 100*f.SpeechCut)
			}
			if s.core {
				fmt.Fprintf(&cands, "| %s | %s | %s |\n", s.name, c.name, voiceRow(f))
			}
		}
	}
	return "### Voice enhancement on real voices and real noise\n\n" +
		"Real voices of the set with noise mixed in (pink; babble: five other codec2 voices looped over each other; white), " +
		"pauses (40 dB under the speech, 0.5 s or longer, measured 0.2 s inside their edges) and speech taken from the clean speech, " +
		"and real noisy HF radio recordings (pauses: their quietest stretches, at most 4 dB over the 10th percentile of 20 ms levels, " +
		"0.5 s or longer, measured 0.2 s inside), each through the voice chain and AAC as a render does (the chain's own ffmpeg runs included). " +
		"SNR: RMS over the speech frames over RMS over the pauses, source then output; worst pause: the largest change of one pause's " +
		"level from source to output; LUFS and true peak by ffmpeg ebur128; speech correlation with the clean speech (source -> output) " +
		"and the share of the soft speech frames (under the active level) more than 10 dB under the output's median gain (a gate eating syllables; " +
		"the loud frames a compressor turns down on purpose are left out).\n\n" +
		main.String() + "\nEvery candidate on the core sources (the chain before, other denoisers, each with and without the gate on the pauses):\n\n" + cands.String(), nil
}

func voiceRow(f testvideo.VoiceFigures) string {
	return fmt.Sprintf("%+.1f | %+.1f | %.1f | %.1f | %s | %.1f%%", f.SNRAfter-f.SNRBefore, f.WorstPauseDB, f.LUFS, f.TruePeak, corr(f.CorrAfter), 100*f.SpeechCut)
}

func corr(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// enhanceAndMeasure runs the chain of v over src's sound into out (AAC, as a render encodes
// it) and measures the result.
func enhanceAndMeasure(ctx context.Context, src *testvideo.NoisySpeech, v media.VoiceVariant, out string) (testvideo.VoiceFigures, error) {
	pcm, err := testvideo.ReadPCM(ctx, src.Path, src.Rate)
	if err != nil {
		return testvideo.VoiceFigures{}, err
	}
	dur := float64(len(pcm)) / float64(src.Rate)
	info := &media.ProbeResult{DurationSec: dur, HasAudio: true, AudioStream: 0, VideoStream: -1}
	chain, err := media.VoiceChain(ctx, src.Path, info, 0, dur, v)
	if err != nil {
		return testvideo.VoiceFigures{}, err
	}
	cmd := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", src.Path,
		"-af", chain, "-c:a", "aac", "-b:a", "128k", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		return testvideo.VoiceFigures{}, fmt.Errorf("ffmpeg %s: %w: %s", chain, err, b)
	}
	return testvideo.MeasureVoice(ctx, src, out)
}
