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
)

// PocketsphinxBatchTool decodes the utterances of Transcribe: one process a
// worker, each utterance decoded whole with its own cepstral mean.
const PocketsphinxBatchTool = "pocketsphinx_batch"

// ModelDir is where Debian's pocketsphinx-en-us puts the en-us model, whose
// language model BiasLanguageModel copies.
const ModelDir = "/usr/share/pocketsphinx/model/en-us"

// lmBoost raises a project's own words' unigram log10 probability: by a
// factor of 1000. Measured on an audiobook's five sentences with its title
// words as hints, boosts from 10 to 10^6 made the same change (the
// character's name heard: WER 0.28 to 0.24 at 16 kHz, 0.35 to 0.31 at 8
// kHz), and another recording's words as hints (10^3, 10^5) changed
// nothing; 1000 is in the middle of that.
const lmBoost = 3.0

// decoderArgs are pocketsphinx_batch's settings for 16 kHz mono audio.
// -cmn current: each utterance's own cepstral mean (see Utterances).
// narrow (audio that was 8 kHz): the model's 16 kHz filterbank is kept
// (-samprate 8000 -nfft 256 with the filterbank cut to 3.5 kHz mismatches
// the model's training: measured worse, and the en-us package has no 8 kHz
// model); -remove_noise no, since pocketsphinx's noise estimate takes the
// empty band above 4 kHz for a floor to subtract (jfk.wav at 8 kHz: WER
// 0.68 to 0.45, with an audiobook's 8 kHz copy 0.39 to 0.34); and -lw 5 (the
// language model weighed less, default 6.5): measured better on both at 8
// kHz, no different at 16 kHz, so only there.
func decoderArgs(narrow bool) []string {
	args := []string{"-cmn", "current"}
	if narrow {
		args = append(args, "-remove_noise", "no", "-lw", "5")
	}
	return args
}

// audioAnalysis is what Transcribe learns of the audio before decoding:
// the level of each 10 ms frame and whether it was 8 kHz audio.
type audioAnalysis struct {
	levels []float64
	narrow bool
}

// analyse reads 16 kHz mono 16-bit PCM in frames.
func analyse(r io.Reader) (audioAnalysis, error) {
	const n = 160
	var a audioAnalysis
	br := bufio.NewReaderSize(r, 1<<16)
	frame := make([]byte, 2*n)
	nb := newNarrowbandMeter()
	for {
		if _, err := io.ReadFull(br, frame); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			return a, err
		}
		var sum float64
		for i := 0; i < n; i++ {
			x := float64(int16(binary.LittleEndian.Uint16(frame[2*i:]))) / 32768
			sum += x * x
			nb.add(x)
		}
		nb.endFrame()
		a.levels = append(a.levels, 10*math.Log10(sum/n+1e-12))
	}
	a.narrow = nb.narrow()

	return a, nil
}

// batchUtterance is one line of a pocketsphinx_batch control file.
type batchUtterance struct {
	id   string
	span Span
}

// decodeUtterances decodes the utterances of raw (16 kHz mono 16-bit PCM in
// dir) with pocketsphinx_batch and args, at most workers processes at once,
// and returns their words in time order.
func decodeUtterances(ctx context.Context, dir, raw string, utts []Span, args []string, workers int) ([]Word, error) {
	if len(utts) == 0 {
		return []Word{}, nil
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, len(utts))
	// Longest first to the least loaded worker, so they end together.
	order := make([]int, len(utts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return utts[order[a]].End-utts[order[a]].Start > utts[order[b]].End-utts[order[b]].Start
	})
	queues := make([][]batchUtterance, workers)
	load := make([]float64, workers)
	for _, i := range order {
		w := 0
		for k := range load {
			if load[k] < load[w] {
				w = k
			}
		}
		queues[w] = append(queues[w], batchUtterance{fmt.Sprintf("u%05d", i), utts[i]})
		load[w] += utts[i].End - utts[i].Start
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([][]Word, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w, q := range queues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[w], errs[w] = decodeBatch(ctx, dir, raw, fmt.Sprintf("w%d", w), q, args)
			if errs[w] != nil {
				cancel() // one failed worker fails the transcript: stop the others
			}
		}()
	}
	wg.Wait()
	var words []Word
	for w := range queues {
		if errs[w] != nil {
			return nil, errs[w]
		}
		words = append(words, results[w]...)
	}
	sort.SliceStable(words, func(i, j int) bool { return words[i].Start < words[j].Start })
	return words, nil
}

// decodeBatch runs one pocketsphinx_batch over the utterances q of raw and
// reads its CTM output (word times from each utterance's start).
func decodeBatch(ctx context.Context, dir, raw, name string, q []batchUtterance, args []string) ([]Word, error) {
	var ctl strings.Builder
	starts := map[string]float64{}
	base := strings.TrimSuffix(filepath.Base(raw), filepath.Ext(raw))
	for _, u := range q {
		// Frames of 10 ms, as pocketsphinx counts them.
		fmt.Fprintf(&ctl, "%s %d %d %s\n", base, int(math.Round(u.span.Start*100)), int(math.Round(u.span.End*100)), u.id)
		starts[u.id] = math.Round(u.span.Start*100) / 100
	}
	ctlPath, ctmPath := filepath.Join(dir, name+".ctl"), filepath.Join(dir, name+".ctm")
	if err := os.WriteFile(ctlPath, []byte(ctl.String()), 0o600); err != nil {
		return nil, fmt.Errorf("pocketsphinx: control file: %w", err)
	}
	all := append([]string{"-ctl", ctlPath, "-cepdir", dir, "-cepext", filepath.Ext(raw), "-adcin", "yes", "-adchdr", "0",
		"-ctm", ctmPath, "-logfn", os.DevNull}, args...)
	if err := run(ctx, fmt.Sprintf("%s (%d utterances)", PocketsphinxBatchTool, len(q)), PocketsphinxBatchTool, all, nil, nil); err != nil {
		return nil, err
	}
	out, err := os.ReadFile(ctmPath)
	if err != nil {
		return nil, fmt.Errorf("pocketsphinx: %w", err)
	}
	return ParseCTM(string(out), starts), nil
}

// ParseCTM reads pocketsphinx_batch's -ctm output: lines "utterance channel
// start duration word confidence", times in seconds from the utterance's
// start, which starts gives (in seconds from the start of the audio). Lines
// of unknown utterances, fillers and noises are dropped and pronunciation
// variants ("read(2)") lose their suffix.
func ParseCTM(out string, starts map[string]float64) []Word {
	words := []Word{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 6 {
			continue
		}
		at, ok := starts[f[0]]
		start, err1 := strconv.ParseFloat(f[2], 64)
		dur, err2 := strconv.ParseFloat(f[3], 64)
		conf, err3 := strconv.ParseFloat(f[5], 64)
		text := f[4]
		if i := strings.IndexByte(text, '('); i > 0 && strings.HasSuffix(text, ")") {
			text = text[:i]
		}
		if !ok || err1 != nil || err2 != nil || err3 != nil || dur < 0 || filler(text) {
			continue
		}
		s := math.Round((at+start)*1000) / 1000
		words = append(words, Word{Text: text, Start: s, End: math.Round((s+dur)*1000) / 1000, Confidence: min(1, max(0, conf))})
	}
	sort.SliceStable(words, func(i, j int) bool { return words[i].Start < words[j].Start })
	return words
}
