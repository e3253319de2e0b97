package testvideo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// The voices Options.Voice may ask for; "" picks the best one installed.
const (
	// VoiceFestival is festival's HTS voice cmu_us_slt_arctic_hts (Debian: festival
	// festvox-us-slt-hts): natural enough for a speech recogniser to transcribe.
	VoiceFestival = "festival"
	// VoiceEspeak is espeak-ng, the fallback: fast, but hard for a recogniser to follow.
	VoiceEspeak = "espeak-ng"
)

// festivalVoiceDirs are where Debian's festvox-us-slt-hts puts the voice.
var festivalVoiceDirs = []string{
	"/usr/share/festival/voices/us/cmu_us_slt_arctic_hts",
	"/usr/local/share/festival/voices/us/cmu_us_slt_arctic_hts",
}

// FestivalAvailable reports whether festival and its HTS voice are installed.
func FestivalAvailable() bool {
	if _, err := exec.LookPath("festival"); err != nil {
		return false
	}
	for _, d := range festivalVoiceDirs {
		if _, err := os.Stat(d); err == nil {
			return true
		}
	}
	return false
}

// resolveVoice turns a valid Options.Voice into the voice to use, checking it is installed.
func resolveVoice(v string) (string, error) {
	if v == VoiceFestival || v == "" && FestivalAvailable() {
		if !FestivalAvailable() {
			return "", fmt.Errorf("testvideo: voice %q needs festival and festvox-us-slt-hts installed", v)
		}
		return VoiceFestival, nil
	}
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		return "", fmt.Errorf("testvideo: espeak-ng is required: %w", err)
	}
	return VoiceEspeak, nil
}

const (
	// festivalGain brings the HTS voice's level to espeak-ng's at the same amplitude.
	festivalGain = 1.5
	// festivalWPM is the espeak-ng speed (words per minute) of festival's normal rate: the HTS
	// voice speaks a little slower, so it is sped up to keep sentences as long as espeak-ng's.
	festivalWPM = 155
)

// festivalBatch synthesizes keys in one festival run (starting festival costs more than a
// sentence), resampled to speechRate, one WAV per key at s.path(k).
func (s *synthesizer) festivalBatch(ctx context.Context, keys []synthKey) error {
	var script strings.Builder
	script.WriteString("(voice_cmu_us_slt_arctic_hts)\n(set! clipper_base hts_engine_params)\n")
	for _, k := range keys {
		st := styles[k.style]
		// hts_engine -r scales the speaking rate, -fm shifts the pitch in half tones.
		fmt.Fprintf(&script, "(set! hts_engine_params (append clipper_base '((\"-r\" %s) (\"-fm\" %s))))\n",
			strconv.FormatFloat(float64(st.speed)/festivalWPM, 'f', 3, 64), strconv.FormatFloat(float64(st.pitch-50)/6, 'f', 3, 64))
		fmt.Fprintf(&script, "(set! u (utt.synth (Utterance Text %s)))\n(utt.wave.resample u %d)\n(utt.save.wave u %s 'riff)\n",
			schemeString(sentences[k.sentence]), speechRate, schemeString(s.path(k)))
	}
	scriptPath := filepath.Join(s.dir, "synth.scm")
	if err := os.WriteFile(scriptPath, []byte(script.String()), 0o600); err != nil {
		return fmt.Errorf("testvideo: festival script: %w", err)
	}
	cmd := toolexec.Command(ctx, "festival", "--batch", scriptPath)
	var stderr toolexec.Tail
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("testvideo: festival: %w: %s", err, stderr.String())
	}
	for _, k := range keys {
		if err := s.load(k, festivalGain*float64(styles[k.style].amplitude)/100); err != nil {
			return fmt.Errorf("%w (festival: %s)", err, stderr.String())
		}
	}
	return nil
}

// espeakBatch runs espeak-ng once per key: it starts fast.
func (s *synthesizer) espeakBatch(ctx context.Context, keys []synthKey) error {
	for _, k := range keys {
		st := styles[k.style]
		cmd := toolexec.Command(ctx, "espeak-ng", "-v", "en-us",
			"-a", strconv.Itoa(st.amplitude), "-s", strconv.Itoa(st.speed), "-p", strconv.Itoa(st.pitch),
			"-w", s.path(k), sentences[k.sentence])
		var stderr toolexec.Tail
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("testvideo: espeak-ng: %w: %s", err, stderr.String())
		}
		if err := s.load(k, 1); err != nil {
			return err
		}
	}
	return nil
}

// schemeString quotes s as a Scheme string literal.
func schemeString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
