package transcribe

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// Chunking for Spot and DecodeAmong (pocketsphinx_continuous; Transcribe
// cuts utterances instead): long audio is cut in a pause between
// chunkMinSec and chunkMaxSec into a chunk, so chunks are decoded in
// parallel and no word is cut.
const (
	chunkMinSec = 30
	chunkMaxSec = 60
	// pauseNoiseDB / pauseMinSec: quieter than this for at least this long is a pause.
	pauseNoiseDB = -35
	pauseMinSec  = 0.3
	// bytesPerSec of 16 kHz mono 16-bit PCM.
	bytesPerSec = 16000 * 2
)

// Pocketsphinx recognises English offline with CMU pocketsphinx and its
// en-us model: pocketsphinx_batch over the utterances between the audio's
// pauses, with settings for 8 kHz audio when the audio was 8 kHz, and a
// language model biased toward the project's words when it has some
// (TranscribeHinted).
type Pocketsphinx struct {
	// Workers bounds the decoders run at once; 0 = runtime.NumCPU().
	Workers int
}

// Describe names the recogniser.
func (*Pocketsphinx) Describe() string { return KindPocketsphinx }

// Span is a part of the audio in seconds.
type Span struct{ Start, End float64 }

// Transcribe recognises the words of wavPath.
func (p *Pocketsphinx) Transcribe(ctx context.Context, wavPath, lang string) ([]Word, error) {
	return p.TranscribeHinted(ctx, wavPath, lang, nil)
}

// TranscribeHinted recognises the words of wavPath, likelier to hear the
// hints (the project's own words: BiasWords) where the sound fits them. It
// cuts the audio into utterances at its pauses (Utterances) and decodes
// them in parallel.
func (p *Pocketsphinx) TranscribeHinted(ctx context.Context, wavPath, lang string, hints []string) ([]Word, error) {
	if !English(lang) {
		return nil, fmt.Errorf("%w %q: pocketsphinx recognises English only", ErrUnsupportedLanguage, lang)
	}
	dir, err := os.MkdirTemp(filepath.Dir(wavPath), "clipperd-asr-") // beside the wav: the job's directory
	if err != nil {
		return nil, fmt.Errorf("pocketsphinx: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	raw := filepath.Join(dir, "audio.raw")
	if err := run(ctx, "decode audio: ffmpeg", "ffmpeg", []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y",
		"-i", toolexec.LocalURL(wavPath), "-ac", "1", "-ar", "16000", "-f", "s16le", raw}, nil, nil); err != nil {
		return nil, err
	}
	f, err := os.Open(raw)
	if err != nil {
		return nil, fmt.Errorf("pocketsphinx: %w", err)
	}
	a, err := analyse(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("pocketsphinx: read audio: %w", err)
	}
	args := decoderArgs(a.narrow)
	if lm := filepath.Join(ModelDir, "en-us.lm.bin"); len(hints) > 0 {
		biased := filepath.Join(dir, "biased.lm.bin")
		raised, err := BiasLanguageModel(lm, biased, hints, lmBoost)
		if err != nil {
			return nil, err
		}
		if len(raised) > 0 {
			args = append(args, "-lm", biased)
		}
	}
	return decodeUtterances(ctx, dir, raw, Utterances(a.levels), args, p.Workers)
}

// Keyphrase is a phrase for Spot and its threshold: the ratio of the
// phrase's likelihood to that of any other sounds (pocketsphinx's phone
// loop) a detection must pass. Longer phrases need smaller thresholds.
type Keyphrase struct {
	Phrase    string
	Threshold float64
}

// Spot finds where the keyphrases are spoken in wavPath with pocketsphinx's
// keyword spotting (-kws): no language model, so a phrase is found by its
// sound alone where the recogniser's language model would hear likelier
// words. Words are the phrases found, timed as Transcribe's are; Confidence
// is pocketsphinx's, which does not rank detections.
func (p *Pocketsphinx) Spot(ctx context.Context, wavPath string, phrases []Keyphrase) ([]Word, error) {
	if len(phrases) == 0 {
		return nil, nil
	}
	var list strings.Builder
	for _, k := range phrases {
		phrase := strings.Join(strings.Fields(strings.ToLower(k.Phrase)), " ")
		if phrase == "" || strings.ContainsAny(phrase, "/") || !(k.Threshold > 0) || math.IsInf(k.Threshold, 0) {
			return nil, fmt.Errorf("keyphrase %q: need a phrase without '/' and a threshold above 0, not %g", k.Phrase, k.Threshold)
		}
		fmt.Fprintf(&list, "%s /%g/\n", phrase, k.Threshold)
	}
	return p.decode(ctx, wavPath, func(dir string) ([]string, error) {
		file := filepath.Join(dir, "keyphrases.list")
		if err := os.WriteFile(file, []byte(list.String()), 0o600); err != nil {
			return nil, fmt.Errorf("pocketsphinx: keyphrase list: %w", err)
		}
		return []string{"-kws", file}, nil
	})
}

// decode finds the pauses of wavPath, cuts it into chunks at pauses and
// decodes the chunks in parallel: recognises them, or decodes them with the
// arguments setup returns (given the temporary directory, for their files).
func (p *Pocketsphinx) decode(ctx context.Context, wavPath string, setup func(dir string) ([]string, error)) ([]Word, error) {
	dir, err := os.MkdirTemp(filepath.Dir(wavPath), "clipperd-asr-") // beside the wav: the job's directory
	if err != nil {
		return nil, fmt.Errorf("pocketsphinx: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	var extra []string
	if setup != nil {
		if extra, err = setup(dir); err != nil {
			return nil, err
		}
	}

	raw, chunks, err := splitAtPauses(ctx, wavPath, dir, chunkMinSec, chunkMaxSec)
	if err != nil {
		return nil, err
	}
	return p.recogniseChunks(ctx, raw, dir, chunks, extra)
}

// splitAtPauses decodes wavPath once into dir/audio.raw (16 kHz mono 16-bit
// PCM to cut chunks from) while finding its pauses, and cuts it into chunks
// of minSec to maxSec at pauses (ChunkSpans).
func splitAtPauses(ctx context.Context, wavPath, dir string, minSec, maxSec float64) (string, []Span, error) {
	raw := filepath.Join(dir, "audio.raw")
	var log strings.Builder
	err := run(ctx, "find pauses: ffmpeg", "ffmpeg", []string{"-nostdin", "-hide_banner", "-loglevel", "info", "-y",
		"-i", toolexec.LocalURL(wavPath), "-af", fmt.Sprintf("silencedetect=n=%ddB:d=%g", pauseNoiseDB, pauseMinSec),
		"-ac", "1", "-ar", "16000", "-f", "s16le", raw}, nil, &log)
	if err != nil {
		return "", nil, err
	}
	st, err := os.Stat(raw)
	if err != nil {
		return "", nil, fmt.Errorf("split at pauses: %w", err)
	}
	duration := float64(st.Size()) / bytesPerSec
	return raw, ChunkSpans(duration, ParseSilences(log.String(), duration), minSec, maxSec), nil
}

// recogniseChunks runs pocketsphinx (with extra arguments) on each chunk of
// raw, at most Workers at once, and joins their words in time order.
func (p *Pocketsphinx) recogniseChunks(ctx context.Context, raw, dir string, chunks []Span, extra []string) ([]Word, error) {
	workers := p.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([][]Word, len(chunks))
	errs := make([]error, len(chunks))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			results[i], errs[i] = recogniseChunk(ctx, raw, filepath.Join(dir, fmt.Sprintf("chunk%04d.wav", i)), c, extra)
			if errs[i] != nil {
				cancel() // one failed chunk fails the transcript: stop the others
			}
		}()
	}
	wg.Wait()
	var words []Word
	for i := range chunks {
		if errs[i] != nil {
			return nil, errs[i]
		}
		words = append(words, results[i]...)
	}
	return words, nil
}

// recogniseChunk writes span c of raw as a WAV file and decodes it.
func recogniseChunk(ctx context.Context, raw, wav string, c Span, extra []string) ([]Word, error) {
	if err := writeWAVChunk(raw, wav, c); err != nil {
		return nil, fmt.Errorf("pocketsphinx: chunk %.1f–%.1f s: %w", c.Start, c.End, err)
	}
	var out strings.Builder
	args := append([]string{"-infile", wav, "-time", "yes", "-logfn", os.DevNull}, extra...)
	if err := run(ctx, fmt.Sprintf("%s (chunk %.1f–%.1f s)", PocketsphinxTool, c.Start, c.End), PocketsphinxTool,
		args, &out, nil); err != nil {
		return nil, err
	}
	words := ParsePocketsphinx(out.String())
	for i := range words {
		words[i].Start += c.Start
		words[i].End += c.Start
	}
	return words, nil
}

// writeWAVChunk copies span c of the 16 kHz mono 16-bit raw PCM file to a
// WAV file.
func writeWAVChunk(raw, wav string, c Span) error {
	in, err := os.Open(raw)
	if err != nil {
		return err
	}
	defer in.Close()
	from := int64(c.Start*16000) * 2
	n := int64(c.End*16000)*2 - from
	out, err := os.Create(wav)
	if err != nil {
		return err
	}
	hdr := make([]byte, 0, 44)
	hdr = append(hdr, "RIFF"...)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(36+n))
	hdr = append(hdr, "WAVEfmt "...)
	hdr = binary.LittleEndian.AppendUint32(hdr, 16)
	hdr = binary.LittleEndian.AppendUint16(hdr, 1) // PCM
	hdr = binary.LittleEndian.AppendUint16(hdr, 1) // mono
	hdr = binary.LittleEndian.AppendUint32(hdr, 16000)
	hdr = binary.LittleEndian.AppendUint32(hdr, bytesPerSec)
	hdr = binary.LittleEndian.AppendUint16(hdr, 2)
	hdr = binary.LittleEndian.AppendUint16(hdr, 16)
	hdr = append(hdr, "data"...)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(n))
	_, err = out.Write(hdr)
	if err == nil {
		_, err = io.Copy(out, io.NewSectionReader(in, from, n))
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// ParseSilences reads the pauses ffmpeg's silencedetect logged
// ("silence_start: 1.2", "silence_end: 2.0 | silence_duration: 0.8"); a
// pause still open at the end runs to duration.
func ParseSilences(log string, duration float64) []Span {
	var out []Span
	open := math.NaN()
	for _, line := range strings.Split(log, "\n") {
		if v, ok := logValue(line, "silence_start:"); ok {
			open = max(0, v)
		} else if v, ok := logValue(line, "silence_end:"); ok && !math.IsNaN(open) {
			if v > open {
				out = append(out, Span{open, min(v, duration)})
			}
			open = math.NaN()
		}
	}
	if !math.IsNaN(open) && duration > open {
		out = append(out, Span{open, duration})
	}
	return out
}

func logValue(line, key string) (float64, bool) {
	_, after, ok := strings.Cut(line, key)
	if !ok {
		return 0, false
	}
	f := strings.Fields(after)
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// ChunkSpans cuts [0, duration] into chunks of at most maxSec, each cut in
// the middle of the longest pause that leaves a chunk of at least minSec
// (at maxSec when there is no such pause).
func ChunkSpans(duration float64, pauses []Span, minSec, maxSec float64) []Span {
	var out []Span
	start := 0.0
	for duration-start > maxSec {
		cut, best := start+maxSec, -1.0
		for _, p := range pauses {
			mid := (p.Start + p.End) / 2
			if mid >= start+minSec && mid <= start+maxSec && p.End-p.Start > best {
				cut, best = mid, p.End-p.Start
			}
		}
		out = append(out, Span{start, cut})
		start = cut
	}
	if duration > start {
		out = append(out, Span{start, duration})
	}
	return out
}

// ParsePocketsphinx reads the words of `pocketsphinx_continuous -time yes`
// output: lines "word start end confidence" (seconds), among hypothesis
// lines without times, which are skipped. Sentence and silence markers
// (<s>, </s>, <sil>), noises ([NOISE], ++NOISE++) are dropped and
// pronunciation variants ("read(2)") lose their suffix.
func ParsePocketsphinx(out string) []Word {
	words := []Word{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		var nums [3]float64
		ok := true
		for i := range nums {
			v, err := strconv.ParseFloat(f[i+1], 64)
			ok = ok && err == nil
			nums[i] = v
		}
		text := f[0]
		if i := strings.IndexByte(text, '('); i > 0 && strings.HasSuffix(text, ")") {
			text = text[:i]
		}
		if !ok || filler(text) {
			continue
		}
		words = append(words, Word{Text: text, Start: nums[0], End: nums[1], Confidence: min(1, max(0, nums[2]))})
	}
	sort.SliceStable(words, func(i, j int) bool { return words[i].Start < words[j].Start })
	return words
}

func filler(w string) bool {
	// "(NULL)" marks a grammar's empty transitions (DecodeAmong).
	return strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "++") || strings.HasPrefix(w, "(") || w == ""
}
