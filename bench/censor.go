package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/censorjobs"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
)

// The censor benchmark: festival speaks every word of the profanity list in
// carrier sentences, and about ten minutes of clean sentences; clipperd's
// recogniser makes each track's transcript (cached) and the censor's two
// stages (censorjobs.Hear: lax keyword spotting, then a decode among the
// listed and the transcript's words) run over each track. Reported: profane
// words found and false alarms by each stage and by both, how close the
// censored span comes to the word festival spoke, and the cost beside the
// recogniser's.

// Carrier sentences; %s is the profane word. tuneCarriers are the ones the
// thresholds were tuned on, heldOutCarriers only checked.
var (
	tuneCarriers = []string{
		"Oh %s, I forgot to preheat the oven.",
		"He looked at the bill and said %s, that is expensive.",
	}
	heldOutCarriers = []string{
		"Well %s, the train left without us again.",
		"My brother told me the whole %s story last night.",
	}
)

// soundAlikes are clean sentences full of words that sound close to listed
// ones (sheet, shell, dam, deck, fork, duck...): a harder test than plain
// speech, reported apart.
var soundAlikes = []string{
	"She folded the clean sheet and put it on the top shelf.",
	"The old ship sailed past the shell beach at dawn.",
	"Hello, he said, and picked up the deck of cards.",
	"A duck swam by the dam near the wooden dock.",
	"Put the fork on the desk beside the thick book.",
	"The witch sat by the ditch behind the church.",
	"I am pleased the whole class passed the test.",
	"We need a scrap of paper and a small clamp.",
	"He shot the puck past the goalie and the crowd cheered.",
	"They hoisted the mast and checked the brass bolts.",
	"Pick a card, any card, and put it back in the pack.",
	"The track was full of slush after the storm.",
}

// The clean text: sentences drawn from these pools with a fixed seed, none
// with a word of the profanity list.
var (
	cleanSubjects = []string{
		"My neighbour", "The young teacher", "Our new manager", "A tired farmer", "The local baker",
		"Every student", "The museum guide", "My grandmother", "The pilot", "A quiet engineer",
		"The team captain", "Her cousin", "The gardener", "Our little dog", "The night nurse",
		"A famous painter", "The bus driver", "The whole village", "My best friend", "The scientist",
		"The librarian", "A curious child", "The mayor", "Our landlord", "The chef",
		"The orchestra", "A travelling musician", "The fisherman", "The reporter", "Your sister",
	}
	cleanVerbs = []string{
		"carefully repaired", "slowly carried", "happily painted", "quickly sold", "finally found",
		"proudly showed us", "gently cleaned", "eagerly described", "calmly explained", "nearly forgot",
		"loudly praised", "secretly borrowed", "patiently measured", "bravely climbed", "kindly offered",
		"suddenly noticed", "always remembers", "never finished", "often visits", "rarely mentions",
		"politely returned", "neatly wrapped", "warmly welcomed", "loudly ordered", "barely lifted",
	}
	cleanObjects = []string{
		"the blue bicycle", "a basket of apples", "the broken window", "an old map of the city",
		"the wooden table", "a box of letters", "the garden fence", "a bright yellow umbrella",
		"the heavy suitcase", "a loaf of fresh bread", "the silver teapot", "a stack of newspapers",
		"the kitchen clock", "a pair of warm gloves", "the stone bridge", "a jar of honey",
		"the tall ladder", "a bag of oranges", "the village bell", "a drawing of a horse",
		"the little boat", "a bunch of flowers", "the green tractor", "a cup of tea",
		"the family photo album", "a set of keys", "the red kite", "a bowl of soup",
		"the concert tickets", "a new guitar",
	}
	cleanTails = []string{
		"before the rain started", "on a sunny afternoon", "after the long meeting", "near the river",
		"at the end of the summer", "during the winter festival", "without saying a word",
		"in the middle of the night", "for the school fair", "while the kettle was boiling",
		"under the old oak tree", "at the railway station", "just before dinner", "on the way to work",
		"behind the town hall", "in front of everyone", "as the sun went down", "for the first time",
		"next to the fountain", "at the market on Tuesday",
	}
	cleanOpeners = []string{"", "", "", "Yesterday, ", "Last week, ", "In the morning, ", "Believe it or not, ", "As usual, ", "To our surprise, ", "Once again, "}
)

// cleanSentences draws n sentences from the pools.
func cleanSentences(n int) []string {
	rng := rand.New(rand.NewPCG(20, 8))
	pick := func(pool []string) string { return pool[rng.IntN(len(pool))] }
	out := make([]string, n)
	for i := range out {
		s := pick(cleanOpeners) + pick(cleanSubjects) + " " + pick(cleanVerbs) + " " + pick(cleanObjects) + " " + pick(cleanTails) + "."
		out[i] = strings.ToUpper(s[:1]) + s[1:]
	}
	return out
}

// fword is a word festival spoke and when, in seconds of its track.
type fword struct {
	text       string
	start, end float64
}

// spoken is a sentence's speech: 16 kHz mono samples and its words' times.
type spoken struct {
	pcm   []int16
	words []fword
}

// track is sentences spoken one after another with pauses between.
type track struct {
	pcm   []int16
	words []fword // in seconds of the track
}

const (
	benchRate   = 16000
	trackPause  = 0.6
	censorVoice = "(voice_cmu_us_slt_arctic_hts)"
)

func runCensor(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("censor", flag.ContinueOnError)
	cache := fs.String("cache", filepath.Join(os.TempDir(), "clipper-bench-censor"), "directory keeping festival's speech between runs")
	cleanN := fs.Int("clean", 150, "clean sentences (about 4 s each)")
	tune := fs.Bool("tune", false, "first find each word's strictest threshold that finds all its tuning sentences")
	only := fs.String("only", "", "with a comma-separated list of tune, held, clean, alike: only those rows")
	tuneClean := fs.Bool("tune-clean", false, "with --tune: also each word's laxest threshold with no false alarm on the clean speech (slow: a pass over it per round)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(*cache, 0o755); err != nil {
		return err
	}
	phrases := censorjobs.Keyphrases()
	tuneSet, held := profaneSentences(phrases)
	clean := cleanSentences(*cleanN)
	if err := checkClean(append(slices.Clone(clean), soundAlikes...)); err != nil {
		return err
	}
	start := time.Now()
	tracks, err := speakTracks(ctx, *cache, map[string][]string{"tune": tuneSet, "held": held, "clean": clean, "alike": soundAlikes})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "speech ready in %s (cache %s)\n", time.Since(start).Round(time.Second), *cache)
	tmp, err := os.MkdirTemp("", "clipper-bench-censor-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	wavs, err := writeTrackWAVs(tmp, tracks)
	if err != nil {
		return err
	}
	spotter := &transcribe.Pocketsphinx{}
	if *tune {
		if err := tuneThresholds(ctx, spotter, phrases, tracks, wavs, *tuneClean); err != nil {
			return err
		}
	}

	fmt.Printf("### The censor's two stages on festival speech (the profanity list's %d words)\n\n", len(phrases))
	fmt.Println("Found / false alarms of each stage alone and of both (a candidate kept where the checking decode has a listed word over it); edges and cost of both.")
	fmt.Println()
	fmt.Println("| speech | length | profane words spoken | stage 1 alone (spotting, lax) | stage 2 alone (decode among the listed and the transcript's words) | **both: found / false alarms** | censored span within 0.15 s of the word's edges | recogniser (transcript) | censor's hearing (both stages) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	var missed []string
	for _, row := range []censorRow{
		{"tune", "profane, tuning sentences (" + strings.Join(tuneCarriers, " / ") + ")"},
		{"held", "profane, held-out sentences (" + strings.Join(heldOutCarriers, " / ") + ")"},
		{"clean", fmt.Sprintf("clean, %d generated sentences", len(clean))},
		{"alike", fmt.Sprintf("clean, %d sentences of sound-alikes (sheet, shell, dam, deck, fork...)", len(soundAlikes))},
	} {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), row.name) {
			continue
		}
		rowMissed, err := hearRow(ctx, spotter, *cache, row, tracks[row.name], wavs[row.name])
		if err != nil {
			return err
		}
		missed = append(missed, rowMissed...)
	}
	if len(missed) > 0 {
		fmt.Printf("\nMissed: %s\n", strings.Join(missed, ", "))
	}
	printWordFound(phrases)
	printEdgeSpread()
	return nil
}

// profaneSentences puts every listed phrase in the tuning carriers and in
// the held-out ones.
func profaneSentences(phrases []transcribe.Keyphrase) (tuneSet, held []string) {
	for _, k := range phrases {
		for _, c := range tuneCarriers {
			tuneSet = append(tuneSet, fmt.Sprintf(c, k.Phrase))
		}
		for _, c := range heldOutCarriers {
			held = append(held, fmt.Sprintf(c, k.Phrase))
		}
	}
	return tuneSet, held
}

// checkClean fails when a sentence meant to be clean has a listed word: its
// hits would count as false alarms.
func checkClean(sentences []string) error {
	for _, s := range sentences {
		for _, w := range strings.Fields(s) {
			if censorjobs.Profane(w) {
				return fmt.Errorf("clean sentence %q has the listed word %q", s, w)
			}
		}
	}
	return nil
}

// speakTracks speaks each named set of sentences as one track.
func speakTracks(ctx context.Context, cache string, sets map[string][]string) (map[string]*track, error) {
	tracks := map[string]*track{}
	for name, ss := range sets {
		t, err := speakTrack(ctx, cache, "", ss)
		if err != nil {
			return nil, fmt.Errorf("%s sentences: %w", name, err)
		}
		tracks[name] = t
	}
	return tracks, nil
}

// writeTrackWAVs writes each track as dir/<name>.wav, the recogniser's
// input, and returns the files by track name.
func writeTrackWAVs(dir string, tracks map[string]*track) (map[string]string, error) {
	wavs := map[string]string{}
	for name, t := range tracks {
		wavs[name] = filepath.Join(dir, name+".wav")
		if err := writeWAV16(wavs[name], t.pcm); err != nil {
			return nil, err
		}
	}
	return wavs, nil
}

// censorRow is a row of the censor's table: the track's name and its label.
type censorRow struct{ name, label string }

// hearRow runs the censor's two stages over one track, prints its row of
// the table (and the details on stderr) and returns the profane words
// missed.
func hearRow(ctx context.Context, spotter *transcribe.Pocketsphinx, cache string, row censorRow, t *track, wav string) ([]string, error) {
	transcript, asrTook, err := cachedTranscript(ctx, spotter, cache, t, wav)
	if err != nil {
		return nil, err
	}
	var vocab []string
	for _, w := range transcript {
		vocab = append(vocab, w.Text)
	}
	began := time.Now()
	heard, err := censorjobs.Hear(ctx, spotter, wav, vocab)
	if err != nil {
		return nil, err
	}
	took := time.Since(began)
	ss := score(t, keptOnSameWord(heard))
	fmt.Fprintf(os.Stderr, "%s: kept only where the candidate is the same word: %d found, %d false alarms\n", row.name, ss.found, ss.falseAlarms)
	s1, s2 := score(t, heard.Candidates), score(t, profaneOnly(heard.Among))
	rawEdges = rawEdges[:0]
	s := score(t, heard.Kept)
	allEdges = append(allEdges, rawEdges...)
	perWord(t, heard.Kept)
	length := float64(len(t.pcm)) / benchRate
	within := "-"
	if s.spoken > 0 {
		within = strconv.Itoa(s.within)
	}
	fmt.Printf("| %s | %.1f s | %d | %d / %d | %d / %d | **%d / %d** | %s | %.1f s | %.1f s |\n", row.label, length, s.spoken,
		s1.found, s1.falseAlarms, s2.found, s2.falseAlarms, s.found, s.falseAlarms, within, asrTook.Seconds(), took.Seconds())
	for _, e := range s.offEdges {
		fmt.Fprintln(os.Stderr, "edges off:", e)
	}
	for _, fa := range lastFalseAlarms {
		fmt.Fprintln(os.Stderr, "false alarm ("+row.name+"):", fa)
	}
	return s.missed, nil
}

// profaneOnly keeps the listed words of the checking decode: stage 2 alone.
func profaneOnly(among []transcribe.Word) []transcribe.Word {
	var out []transcribe.Word
	for _, w := range among {
		if censorjobs.Profane(w.Text) {
			out = append(out, w)
		}
	}
	return out
}

// keptOnSameWord is a rule not used, reported for comparison: a kept word
// counts only where its candidate is the same word.
func keptOnSameWord(heard *censorjobs.Heard) []transcribe.Word {
	var same []transcribe.Word
	for _, k := range heard.Kept {
		if slices.ContainsFunc(heard.Candidates, func(c transcribe.Word) bool {
			return c.Text == k.Text && min(c.End, k.End) > max(c.Start, k.Start)
		}) {
			same = append(same, k)
		}
	}
	return same
}

// printWordFound prints, per listed word, how many of its spoken instances
// the censor found.
func printWordFound(phrases []transcribe.Keyphrase) {
	fmt.Println()
	fmt.Println("| word | found (of 4) |")
	fmt.Println("|---|---|")
	for _, k := range phrases {
		fmt.Printf("| %s | %d |\n", k.Phrase, wordFound[k.Phrase])
	}
}

// printEdgeSpread prints how far the censored starts and ends (unpadded)
// fall from festival's, over every kept word.
func printEdgeSpread() {
	for i, edge := range []string{"start", "end"} {
		var d []float64
		for _, e := range allEdges {
			d = append(d, e[i])
		}
		slices.Sort(d)
		if len(d) > 0 {
			fmt.Printf("\nCensored %s (unpadded) less festival's, %d words: min %+.2f s, median %+.2f s, max %+.2f s\n", edge, len(d), d[0], d[len(d)/2], d[len(d)-1])
		}
	}
}

// cachedTranscript is the recogniser's transcript of t (in wav) and the
// time it took, kept in cache by the track's audio: the recogniser does not
// change between runs of the censor's stages.
func cachedTranscript(ctx context.Context, p *transcribe.Pocketsphinx, cache string, t *track, wav string) ([]transcribe.Word, time.Duration, error) {
	h := sha256.New()
	for _, v := range t.pcm {
		_ = binary.Write(h, binary.LittleEndian, v)
	}
	file := filepath.Join(cache, "transcript-"+hex.EncodeToString(h.Sum(nil)[:10])+".json")
	var kept struct {
		Words []transcribe.Word
		Took  time.Duration
	}
	if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &kept) == nil {
		return kept.Words, kept.Took, nil
	}
	began := time.Now()
	words, err := p.Transcribe(ctx, wav, "en")
	if err != nil {
		return nil, 0, err
	}
	kept.Words, kept.Took = words, time.Since(began)
	b, err := json.Marshal(kept)
	if err == nil {
		err = os.WriteFile(file, b, 0o644)
	}
	return words, kept.Took, err
}

// allEdges are rawEdges of the kept words of every track.
var allEdges [][2]float64

// wordFound counts, per listed word, its spoken instances a kept word
// overlaps.
var wordFound = map[string]int{}

func perWord(t *track, kept []transcribe.Word) {
	for _, w := range t.words {
		if !censorjobs.Profane(w.text) {
			continue
		}
		if slices.ContainsFunc(kept, func(h transcribe.Word) bool { return min(h.End, w.end) > max(h.Start, w.start) }) {
			wordFound[strings.ToLower(strings.Trim(w.text, ".,"))]++
		}
	}
}

// rawEdges are the spotted words' start and end less festival's, before
// padding, of every track scored.
var rawEdges [][2]float64

// lastFalseAlarms describes the false alarms score found, for stderr.
var lastFalseAlarms []string

// spotScore is how a spotting pass did on a track.
type spotScore struct {
	spoken, found, within, falseAlarms int
	missed, offEdges                   []string
}

// score matches hits to the profane words of t: a word is found when a hit
// overlaps it; the censored span is the hit padded as censorjobs pads it.
// A hit on no profane word is a false alarm.
func score(t *track, hits []transcribe.Word) spotScore {
	var s spotScore
	used := make([]bool, len(hits))
	for _, w := range t.words {
		if !censorjobs.Profane(w.text) {
			continue
		}
		s.spoken++
		best, overlap := -1, 0.0
		for i, h := range hits {
			if o := min(h.End, w.end) - max(h.Start, w.start); o > overlap {
				best, overlap = i, o
			}
		}
		if best < 0 {
			s.missed = append(s.missed, fmt.Sprintf("%s at %.2f s", w.text, w.start))
			continue
		}
		s.found++
		for i, h := range hits {
			if min(h.End, w.end) > max(h.Start, w.start) {
				used[i] = true
			}
		}
		rawEdges = append(rawEdges, [2]float64{hits[best].Start - w.start, hits[best].End - w.end})
		span := censorjobs.Pad(hits[best].Start, hits[best].End)
		if math.Abs(span.Start-w.start) <= 0.15 && math.Abs(span.End-w.end) <= 0.15 {
			s.within++
		} else {
			s.offEdges = append(s.offEdges, fmt.Sprintf("%s %.2f-%.2f s censored %.2f-%.2f s", w.text, w.start, w.end, span.Start, span.End))
		}
	}
	lastFalseAlarms = lastFalseAlarms[:0]
	for i, h := range hits {
		if !used[i] {
			s.falseAlarms++
			lastFalseAlarms = append(lastFalseAlarms, fmt.Sprintf("%q at %.2f-%.2f s (said: %s)", h.Text, h.Start, h.End, saidAt(t, h.Start, h.End)))
		}
	}
	return s
}

// saidAt is what festival said around start..end.
func saidAt(t *track, start, end float64) string {
	var out []string
	for _, w := range t.words {
		if w.end > start-0.3 && w.start < end+0.3 {
			out = append(out, w.text)
		}
	}
	return strings.Join(out, " ")
}

// tuneThresholds finds, per word, the strictest threshold (to a factor of
// 10) at which the spotter still finds every tuning sentence's instance of
// the word, by bisection over 1e-60..1e+60 (all words at once: pocketsphinx
// spots each keyphrase apart from the others), then lists each word's false
// alarms on the clean speech at that threshold.
func tuneThresholds(ctx context.Context, spotter *transcribe.Pocketsphinx, phrases []transcribe.Keyphrase, tracks map[string]*track, wavs map[string]string, clean bool) error {
	lo, err := strictestFindingAll(ctx, spotter, phrases, tracks["tune"], wavs["tune"])
	if err != nil {
		return err
	}
	// Then the laxest threshold with no false alarm on the clean speech.
	cleanHi := exponentsAt(phrases, 60)
	if clean {
		if cleanHi, err = laxestWithoutAlarm(ctx, spotter, phrases, wavs["clean"]); err != nil {
			return err
		}
	}
	fmt.Println("### Tuning: per word, the strictest threshold finding all its tuning sentences, and the laxest with no false alarm on the clean speech")
	fmt.Println()
	fmt.Println("| word | finds all tuning words up to | no clean false alarm from |")
	fmt.Println("|---|---|---|")
	for _, k := range phrases {
		fmt.Printf("| %s | 1e%+d | 1e%+d |\n", k.Phrase, lo[k.Phrase], cleanHi[k.Phrase])
	}
	fmt.Println()
	return nil
}

// exponentsAt gives every phrase the same threshold exponent.
func exponentsAt(phrases []transcribe.Keyphrase, exp int) map[string]int {
	m := map[string]int{}
	for _, k := range phrases {
		m[k.Phrase] = exp
	}
	return m
}

// keyphrasesAt lists the phrases with the thresholds 10^exp[phrase].
func keyphrasesAt(phrases []transcribe.Keyphrase, exp map[string]int) []transcribe.Keyphrase {
	list := make([]transcribe.Keyphrase, len(phrases))
	for i, k := range phrases {
		list[i] = transcribe.Keyphrase{Phrase: k.Phrase, Threshold: math.Pow(10, float64(exp[k.Phrase]))}
	}
	return list
}

// strictestFindingAll bisects, per phrase, the largest exponent at which the
// spotter still finds every instance of the phrase in the tuning track.
func strictestFindingAll(ctx context.Context, spotter *transcribe.Pocketsphinx, phrases []transcribe.Keyphrase, tune *track, wav string) (map[string]int, error) {
	lo, hi := exponentsAt(phrases, -60), exponentsAt(phrases, 60) // all found at 10^lo; not at 10^hi
	ok, err := foundAll(ctx, spotter, phrases, tune, wav, lo)
	if err != nil {
		return nil, err
	}
	for w, found := range ok {
		if !found {
			fmt.Fprintf(os.Stderr, "tune: %s is not found even at 1e-60\n", w)
			hi[w] = lo[w]
		}
	}
	for round := 1; ; round++ {
		mid, open := bisectMid(phrases, lo, hi, lo)
		if !open {
			break
		}
		ok, err := foundAll(ctx, spotter, phrases, tune, wav, mid)
		if err != nil {
			return nil, err
		}
		for _, k := range phrases {
			if mid[k.Phrase] == lo[k.Phrase] {
				continue
			}
			if ok[k.Phrase] {
				lo[k.Phrase] = mid[k.Phrase]
			} else {
				hi[k.Phrase] = mid[k.Phrase]
			}
		}
		fmt.Fprintf(os.Stderr, "tune: round %d done\n", round)
	}
	return lo, nil
}

// laxestWithoutAlarm bisects, per phrase, the smallest exponent at which the
// spotter hears the phrase nowhere in the clean track.
func laxestWithoutAlarm(ctx context.Context, spotter *transcribe.Pocketsphinx, phrases []transcribe.Keyphrase, wav string) (map[string]int, error) {
	lo, hi := exponentsAt(phrases, -60), exponentsAt(phrases, 60) // alarms at 10^lo; none at 10^hi
	for round := 1; ; round++ {
		mid, open := bisectMid(phrases, lo, hi, hi)
		if !open {
			break
		}
		hits, err := spotter.Spot(ctx, wav, keyphrasesAt(phrases, mid))
		if err != nil {
			return nil, err
		}
		alarms := map[string]int{}
		for _, h := range hits {
			alarms[h.Text]++
		}
		for _, k := range phrases {
			if mid[k.Phrase] == hi[k.Phrase] {
				continue
			}
			if alarms[k.Phrase] > 0 {
				lo[k.Phrase] = mid[k.Phrase]
			} else {
				hi[k.Phrase] = mid[k.Phrase]
			}
		}
		fmt.Fprintf(os.Stderr, "tune clean: round %d done\n", round)
	}
	return hi, nil
}

// bisectMid is each phrase's next exponent to try: halfway between lo and
// hi where they are more than 1 apart (open reports whether any is),
// settled's where the phrase is settled.
func bisectMid(phrases []transcribe.Keyphrase, lo, hi, settled map[string]int) (mid map[string]int, open bool) {
	mid = map[string]int{}
	for _, k := range phrases {
		mid[k.Phrase] = settled[k.Phrase]
		if hi[k.Phrase]-lo[k.Phrase] > 1 {
			mid[k.Phrase] = (lo[k.Phrase] + hi[k.Phrase]) / 2
			open = true
		}
	}
	return mid, open
}

// foundAll spots the phrases at thresholds 10^exp in the tuning track and
// reports, per phrase, whether every spoken instance was found.
func foundAll(ctx context.Context, spotter *transcribe.Pocketsphinx, phrases []transcribe.Keyphrase, tune *track, wav string, exp map[string]int) (map[string]bool, error) {
	hits, err := spotter.Spot(ctx, wav, keyphrasesAt(phrases, exp))
	if err != nil {
		return nil, err
	}
	ok := map[string]bool{}
	for _, k := range phrases {
		ok[k.Phrase] = true
	}
	for _, w := range tune.words {
		word := strings.ToLower(w.text)
		if _, listed := ok[word]; !listed {
			continue
		}
		found := false
		for _, h := range hits {
			found = found || (h.Text == word && min(h.End, w.end) > max(h.Start, w.start))
		}
		ok[word] = ok[word] && found
	}
	return ok, nil
}

// speakTrack speaks sentences with festival (cached by text in cache) and
// joins them with trackPause seconds of silence before each and after the
// last.
func speakTrack(ctx context.Context, cache, lexicon string, sentences []string) (*track, error) {
	if err := festivalBatch(ctx, cache, lexicon, sentences); err != nil {
		return nil, err
	}
	pause := make([]int16, int(trackPause*benchRate))
	t := &track{}
	for _, s := range sentences {
		sp, err := loadSpoken(cache, lexicon, s)
		if err != nil {
			return nil, err
		}
		t.pcm = append(t.pcm, pause...)
		at := float64(len(t.pcm)) / benchRate
		for _, w := range sp.words {
			t.words = append(t.words, fword{w.text, at + w.start, at + w.end})
		}
		t.pcm = append(t.pcm, sp.pcm...)
	}
	t.pcm = append(t.pcm, pause...)
	return t, nil
}

func cacheKey(lexicon, sentence string) string {
	sum := sha256.Sum256([]byte(censorVoice + "\n" + lexicon + sentence))
	return hex.EncodeToString(sum[:10])
}

// festivalBatch speaks the sentences not yet in cache, in festival runs of
// up to 40 sentences (festival starts slowly): each a 16 kHz raw file and a
// file of its words' times (festival's own: word_start, word_end).
func festivalBatch(ctx context.Context, cache, lexicon string, sentences []string) error {
	var todo []string
	for _, s := range sentences {
		if _, err := os.Stat(filepath.Join(cache, cacheKey(lexicon, s)+".words")); err != nil {
			todo = append(todo, s)
		}
	}
	for len(todo) > 0 {
		n := min(40, len(todo))
		batch := todo[:n]
		todo = todo[n:]
		var script strings.Builder
		script.WriteString(censorVoice + "\n" + lexicon)
		script.WriteString(`(define (say key text wav)
  (let ((utt (utt.synth (eval (list 'Utterance 'Text text)))))
    (utt.save.wave utt wav 'riff)
    (mapcar (lambda (w) (format t "W %s %s %s %s\n" key (item.name w) (item.feat w "word_start") (item.feat w "word_end")))
            (utt.relation.items utt 'Word))))
`)
		for _, s := range batch {
			k := cacheKey(lexicon, s)
			fmt.Fprintf(&script, "(say %q %q %q)\n", k, s, filepath.Join(cache, k+".festival.wav"))
		}
		scm := filepath.Join(cache, "batch.scm")
		if err := os.WriteFile(scm, []byte(script.String()), 0o600); err != nil {
			return err
		}
		out, err := exec.CommandContext(ctx, "festival", "-b", scm).Output()
		if err != nil {
			return fmt.Errorf("festival: %w", err)
		}
		words := map[string][]string{}
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 5 && f[0] == "W" {
				words[f[1]] = append(words[f[1]], strings.Join(f[2:], " "))
			}
		}
		for _, s := range batch {
			k := cacheKey(lexicon, s)
			fw := filepath.Join(cache, k+".festival.wav")
			if out, err := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", fw, "-ac", "1", "-ar", strconv.Itoa(benchRate),
				"-f", "s16le", filepath.Join(cache, k+".raw")).CombinedOutput(); err != nil {
				return fmt.Errorf("ffmpeg %s: %w: %s", fw, err, out)
			}
			_ = os.Remove(fw)
			if len(words[k]) == 0 {
				return fmt.Errorf("festival gave no word times for %q", s)
			}
			if err := os.WriteFile(filepath.Join(cache, k+".words"), []byte(strings.Join(words[k], "\n")+"\n"), 0o600); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "festival: %d sentences spoken, %d to go\n", n, len(todo))
	}
	return nil
}

func loadSpoken(cache, lexicon, sentence string) (*spoken, error) {
	k := cacheKey(lexicon, sentence)
	raw, err := os.ReadFile(filepath.Join(cache, k+".raw"))
	if err != nil {
		return nil, err
	}
	sp := &spoken{pcm: make([]int16, len(raw)/2)}
	for i := range sp.pcm {
		sp.pcm[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	text, err := os.ReadFile(filepath.Join(cache, k+".words"))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("cached words of %q: bad line %q", sentence, line)
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		end, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("cached words of %q: bad line %q", sentence, line)
		}
		sp.words = append(sp.words, fword{f[0], start, end})
	}
	return sp, nil
}

// writeWAV16 writes 16 kHz mono 16-bit samples as a WAV file.
func writeWAV16(path string, pcm []int16) error {
	n := uint32(2 * len(pcm))
	b := make([]byte, 0, 44+n)
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, 36+n)
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint32(b, benchRate)
	b = binary.LittleEndian.AppendUint32(b, 2*benchRate)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, n)
	for _, v := range pcm {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	return os.WriteFile(path, b, 0o644)
}
