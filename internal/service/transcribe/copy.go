package transcribe

import (
	_ "embed"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
)

//go:embed stopwords.txt
var stopList string

// stopWords are English words too common to be a topic.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(stopList) {
		m[w] = true
	}
	return m
}()

// StopWord reports whether w (any case) is an English stop word, too common
// to be a topic.
func StopWord(w string) bool { return stopWords[strings.ToLower(w)] }

// Pause between two words that ends a run (sentence-ish) or a caption cue.
const (
	runPauseSec = 0.5
	maxCueWords = 7
	maxCueSec   = 3.5
)

// Within returns the words whose middle lies in [start, end) seconds.
func Within(words []Word, start, end float64) []Word {
	var out []Word
	for _, w := range words {
		if mid := (w.Start + w.End) / 2; mid >= start && mid < end {
			out = append(out, w)
		}
	}
	return out
}

// Text is the words joined by spaces.
func Text(words []Word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Text
	}
	return strings.Join(parts, " ")
}

// Runs splits words at pauses of runPauseSec or more: the sentence-ish
// stretches of speech.
func Runs(words []Word) [][]Word {
	var out [][]Word
	for i, w := range words {
		if i == 0 || w.Start-words[i-1].End >= runPauseSec {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], w)
	}
	return out
}

// KeyPhrases returns up to n phrases of the words: runs of up to three
// words that are not English stop words, between stop words and pauses,
// most frequent first (ties: first spoken first). Only spoken words appear.
func KeyPhrases(words []Word, n int) []string {
	count := map[string]int{}
	first := map[string]int{}
	add := func(phrase []string) {
		for len(phrase) > 0 {
			p := strings.Join(phrase[:min(3, len(phrase))], " ")
			if _, ok := first[p]; !ok {
				first[p] = len(first)
			}
			count[p]++
			phrase = phrase[min(3, len(phrase)):]
		}
	}
	for _, run := range Runs(words) {
		var cur []string
		for _, w := range run {
			t := strings.ToLower(strings.TrimFunc(w.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
			if t == "" || stopWords[t] || len([]rune(t)) < 3 {
				add(cur)
				cur = nil
				continue
			}
			cur = append(cur, t)
		}
		add(cur)
	}
	phrases := make([]string, 0, len(count))
	for p := range count {
		phrases = append(phrases, p)
	}
	sort.Slice(phrases, func(i, j int) bool {
		a, b := phrases[i], phrases[j]
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		return first[a] < first[b]
	})
	return phrases[:min(n, len(phrases))]
}

// Sentence capitalises the first letter of s and ends it with a full stop.
func Sentence(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r) + "."
}

// Cue is one caption: words shown from Start to End seconds of the clip.
type Cue struct {
	Start, End float64
	Text       string
}

// Cues groups words into captions of a few words, with times relative to
// offset (the clip's start) and clamped to [0, length].
func Cues(words []Word, offset, length float64) []Cue {
	var cues []Cue
	for _, g := range CueGroups(words) {
		s, e := toMs(max(0, g[0].Start-offset)), toMs(min(length, g[len(g)-1].End-offset))
		if e > s {
			cues = append(cues, Cue{s, e, Text(g)})
		}
	}
	return cues
}

// CueGroups splits words into the groups Cues shows together: at most
// maxCueWords words over at most maxCueSec, broken at pauses.
func CueGroups(words []Word) [][]Word {
	var groups [][]Word
	var cur []Word
	for _, w := range words {
		if len(cur) > 0 && (len(cur) >= maxCueWords || w.Start-cur[len(cur)-1].End >= runPauseSec || w.End-cur[0].Start > maxCueSec) {
			groups = append(groups, cur)
			cur = nil
		}
		cur = append(cur, w)
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

func toMs(sec float64) float64 { return math.Round(sec*1000) / 1000 }

// SRT writes cues as a SubRip file.
func SRT(cues []Cue) string {
	var b strings.Builder
	for i, c := range cues {
		fmt.Fprintf(&b, "%d\n%s --> %s\n%s\n\n", i+1, cueTime(c.Start, ","), cueTime(c.End, ","), c.Text)
	}
	return b.String()
}

// VTT writes cues as a WebVTT file.
func VTT(cues []Cue) string {
	var b strings.Builder
	b.WriteString("WEBVTT\n\n")
	for _, c := range cues {
		fmt.Fprintf(&b, "%s --> %s\n%s\n\n", cueTime(c.Start, "."), cueTime(c.End, "."), c.Text)
	}
	return b.String()
}

// cueTime formats seconds as HH:MM:SS<sep>mmm.
func cueTime(sec float64, sep string) string {
	ms := int64(sec*1000 + 0.5)
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
}
