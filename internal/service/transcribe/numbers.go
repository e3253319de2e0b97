package transcribe

import (
	"strconv"
	"strings"
)

// Numbers read as words become digits in captions and titles, as a
// newspaper writes them: "twenty five" is 25, "nineteen sixty one" 1961,
// "three point five" 3.5, "twenty five percent" 25%. A lone number below ten
// stays a word ("the one thing", "two of them"), as style guides keep one to
// nine spelled out, and so does a run of single digits read one by one
// ("one two three").

var (
	units = map[string]int{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
		"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
		"seventeen": 17, "eighteen": 18, "nineteen": 19,
	}
	tens = map[string]int{
		"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
	// ordinalUnits end a compound ordinal: "twenty first" is 21st. Not
	// "second": "a thirty second ad" is 30 seconds long.
	ordinalUnits = map[string]int{
		"first": 1, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
	}
	scales = map[string]int64{"thousand": 1e3, "million": 1e6, "billion": 1e9}
)

// numberRun is a number read from words[start:end] and how to write it.
type numberRun struct {
	end  int
	text string
}

// NumbersAsDigits returns words with each number read as words merged into
// one word written in digits, timed from its first word's start to its last
// word's end, with the lowest confidence of its words. Other words, and
// numbers already in digits, are kept as they are.
func NumbersAsDigits(words []Word) []Word {
	out := make([]Word, 0, len(words))
	lower := make([]string, len(words))
	for i, w := range words {
		lower[i] = strings.ToLower(w.Text)
	}
	for i := 0; i < len(words); {
		r, ok := readNumber(lower, i)
		if !ok {
			out = append(out, words[i])
			i++
			continue
		}
		merged := Word{Text: r.text, Start: words[i].Start, End: words[r.end-1].End, Confidence: words[i].Confidence}
		for _, w := range words[i:r.end] {
			merged.Confidence = min(merged.Confidence, w.Confidence)
		}
		out = append(out, merged)
		i = r.end
	}
	return out
}

// NumbersAsDigitsText is NumbersAsDigits on the words of s (split at
// spaces), for text that has no times.
func NumbersAsDigitsText(s string) string {
	fields := strings.Fields(s)
	words := make([]Word, len(fields))
	for i, f := range fields {
		words[i] = Word{Text: f}
	}
	return Text(NumbersAsDigits(words))
}

// readNumber reads the number that starts at words[i], if one does and it
// is to be written in digits.
func readNumber(words []string, i int) (numberRun, bool) {
	start := i
	n, end, ok := cardinal(words, i)
	if !ok {
		return numberRun{}, false
	}
	if y, yend, ok := year(words, start, n, end); ok {
		return numberRun{yend, strconv.Itoa(y)}, true
	}
	text := formatCardinal(n)
	// An ordinal closes a compound number: "twenty first".
	if n >= 20 && n%10 == 0 && end < len(words) && ordinalUnits[words[end]] != 0 && end-start == 1 {
		n += int64(ordinalUnits[words[end]])
		return numberRun{end + 1, strconv.FormatInt(n, 10) + ordinalSuffix(n)}, true
	}
	// Decimals: "three point five", "zero point two five".
	if end+1 < len(words) && words[end] == "point" {
		var frac strings.Builder
		j := end + 1
		for ; j < len(words); j++ {
			d, ok := units[words[j]]
			if !ok || d > 9 {
				break
			}
			frac.WriteByte(byte('0' + d))
		}
		if frac.Len() > 0 {
			text, end = strconv.FormatInt(n, 10)+"."+frac.String(), j
		}
	}
	spelled := end-start == 1 && n < 10
	if end < len(words) && words[end] == "percent" {
		return numberRun{end + 1, text + "%"}, true
	}
	if spelled {
		return numberRun{}, false // one to nine alone stay words
	}
	return numberRun{end, text}, true
}

// cardinal reads a cardinal number at words[start]: "two hundred and fifty",
// "three thousand four hundred", "twenty five hundred", "a thousand". It
// stops where the words stop making one number, so "nineteen sixty" is 19
// and "five five" is 5. end is the index after its last word.
func cardinal(words []string, start int) (n int64, end int, ok bool) {
	r := &cardinalReader{words: words, start: start}
	i := start
	for ; i < len(words); i++ {
		if stop, at := r.read(i); stop {
			return r.total + r.group, at, at > start
		}
	}
	return r.total + r.group, i, i > start
}

// cardinalReader is cardinal's state between words.
type cardinalReader struct {
	words        []string
	start        int
	total, group int64
	lastScale    int64
	small        bool // group has units or tens after its hundreds
	afterTens    bool // the last word was a tens word ("twenty")
	joined       bool // the last word was a hundred or a scale: "and" may follow
}

// read takes words[i] into the number, or reports that the number stopped
// and where it ends (after a leading "zero", which takes nothing after it;
// before the word otherwise).
func (r *cardinalReader) read(i int) (stop bool, end int) {
	w := r.words[i]
	joined := r.joined
	r.joined = false
	_, isUnit := units[w]
	switch {
	case w == "a" && i == r.start && i+1 < len(r.words) && (r.words[i+1] == "hundred" || scales[r.words[i+1]] != 0):
		r.group, r.small = 1, true
	case w == "zero":
		if i > r.start {
			return true, i
		}
		return true, i + 1
	case isUnit || tens[w] != 0:
		return r.addSmall(i), i
	case w == "hundred" || scales[w] != 0:
		return r.multiply(i), i
	case w == "and" && joined && i+1 < len(r.words) && (units[r.words[i+1]] != 0 || tens[r.words[i+1]] != 0):
		// "two hundred and five": "and" joins only after a hundred or a scale.
	default:
		return true, i
	}
	return false, 0
}

// addSmall adds the unit or tens word words[i] to the group, or reports
// that it starts another number ("nineteen sixty", "five five").
func (r *cardinalReader) addSmall(i int) (stop bool) {
	w := r.words[i]
	if u, isUnit := units[w]; isUnit {
		if i != r.start && (!r.afterTens || u > 9) && r.small {
			return true
		}
		r.group += int64(u)
		r.small, r.afterTens = true, false
		return false
	}
	if i > r.start && r.small {
		return true
	}
	r.group += int64(tens[w])
	r.small, r.afterTens = true, true
	return false
}

// multiply applies "hundred" or a scale word at words[i] to the group, or
// reports that it cannot belong to the number read so far.
func (r *cardinalReader) multiply(i int) (stop bool) {
	w := r.words[i]
	if w == "hundred" {
		if i == r.start || r.group == 0 || r.group >= 100 {
			return true
		}
		r.group *= 100
	} else {
		s := scales[w]
		if i == r.start || r.group == 0 || r.lastScale != 0 && s >= r.lastScale {
			return true
		}
		r.total += r.group * s
		r.group, r.lastScale = 0, s
	}
	r.small, r.afterTens, r.joined = false, false, true
	return false
}

// year reads "nineteen sixty one" (1961), "twenty twenty four" (2024) and
// "nineteen oh five" (1905): a century from thirteen to twenty said as one
// word, then its two-digit year. Not from eleven or twelve: "eleven
// thirty" is a time of day. n is the cardinal read at words[i:end].
func year(words []string, i int, n int64, end int) (int, int, bool) {
	if end-i != 1 || n < 13 || n > 20 || end >= len(words) {
		return 0, 0, false
	}
	century := int(n) * 100
	if words[end] == "oh" {
		if end+1 < len(words) && units[words[end+1]] >= 1 && units[words[end+1]] <= 9 {
			return century + units[words[end+1]], end + 2, true
		}
		return 0, 0, false
	}
	rest, rend, ok := cardinal(words, end)
	if !ok || rest < 10 || rest > 99 {
		return 0, 0, false
	}
	return century + int(rest), rend, true
}

// formatCardinal writes n in digits, with thousands separators from 10,000
// ("25,000"), and whole millions and billions as "5 million".
func formatCardinal(n int64) string {
	for _, s := range []struct {
		name string
		v    int64
	}{{"billion", 1e9}, {"million", 1e6}} {
		if n >= s.v && n%s.v == 0 {
			return strconv.FormatInt(n/s.v, 10) + " " + s.name
		}
	}
	d := strconv.FormatInt(n, 10)
	if n < 10000 {
		return d
	}
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func ordinalSuffix(n int64) string {
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
