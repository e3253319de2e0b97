package transcribe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"unicode"
)

// Biasing the language model toward a project's own words (its topic
// keywords, title and prompt): pocketsphinx 5prealpha cannot interpolate a
// second model from its command line, so a copy of the general model is
// written with those words' unigram probabilities raised. A word then wins
// where the sound fits it and the general model found it merely unlikely
// (names, jargon); where the model already has a bigram or trigram for the
// context, that is kept. Words the model does not know are left out: the
// recogniser cannot say a word its dictionary cannot pronounce.

// trieHeader opens sphinxbase's binary trie language model (.lm.bin).
const trieHeader = "Trie Language Model"

// logBase is the base of the model's stored log probabilities: sphinxbase's
// default -logbase, 1.0001.
const logBase = 1.0001

// BiasLanguageModel reads the binary trie language model src (en-us.lm.bin),
// raises the unigram log10 probability of each of words it knows by boost
// (at most to maxBiasedLog10) and writes the result to dst. It returns the
// words it raised.
func BiasLanguageModel(src, dst string, words []string, boost float64) ([]string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("bias language model: %w", err)
	}
	unigrams, vocab, err := trieUnigrams(data)
	if err != nil {
		return nil, fmt.Errorf("bias language model %s: %w", src, err)
	}
	id := make(map[string]int, len(vocab))
	for i, w := range vocab {
		id[w] = i
	}
	var raised []string
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.ToLower(w)
		i, ok := id[w]
		if !ok || seen[w] {
			continue
		}
		seen[w] = true
		at := unigrams + 12*i // {float32 prob, float32 backoff, uint32 next}
		p := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[at:])))
		log10 := p * math.Log10(logBase)
		if log10 >= maxBiasedLog10 {
			continue
		}
		log10 = min(log10+boost, maxBiasedLog10)
		binary.LittleEndian.PutUint32(data[at:], math.Float32bits(float32(log10/math.Log10(logBase))))
		raised = append(raised, w)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		return nil, fmt.Errorf("bias language model: %w", err)
	}
	return raised, nil
}

// maxBiasedLog10 caps a raised word's unigram probability at about that of
// a common word ("time", "people"), so a topic word never outweighs the
// function words around it.
const maxBiasedLog10 = -2.5

// trieUnigrams finds the unigram table (its byte offset) and the vocabulary
// (in word-id order) of a binary trie model: the header, the order, the
// n-gram counts, for order > 1 the quantisation tables (a 4-byte tag and
// 2^16 floats per table: probability and backoff for each middle order,
// probability for the longest), the unigrams (count+1 entries of 12 bytes),
// the higher n-grams, and last the vocabulary: a 4-byte length and the
// words, each ended by a NUL.
func trieUnigrams(data []byte) (int, []string, error) {
	if !bytes.HasPrefix(data, []byte(trieHeader)) {
		return 0, nil, errors.New("not a binary trie language model")
	}
	at := len(trieHeader)
	if len(data) < at+1 {
		return 0, nil, errors.New("truncated")
	}
	order := int(data[at])
	at++
	if order < 1 || order > 6 || len(data) < at+4*order {
		return 0, nil, fmt.Errorf("order %d", order)
	}
	nUnigrams := int(binary.LittleEndian.Uint32(data[at:]))
	at += 4 * order
	if order > 1 {
		at += 4 + 4*(1<<16)*(2*(order-2)+1)
	}
	unigrams := at
	if nUnigrams <= 0 || len(data) < unigrams+12*(nUnigrams+1) {
		return 0, nil, errors.New("truncated unigrams")
	}
	// The vocabulary ends the file: count its NULs back from the end, then
	// find where its length field says it starts.
	nuls, i := 0, len(data)-1
	for ; i >= 0 && nuls < nUnigrams; i-- {
		if data[i] == 0 {
			nuls++
		}
	}
	for s := i; s >= unigrams+4; s-- { // s: where the first word may start
		if int(binary.LittleEndian.Uint32(data[s-4:])) == len(data)-s {
			vocab := strings.Split(strings.TrimSuffix(string(data[s:]), "\x00"), "\x00")
			if len(vocab) == nUnigrams {
				return unigrams, vocab, nil
			}
		}
		if data[s-1] == 0 {
			break // a NUL before the first word that is not its length field
		}
	}
	return 0, nil, errors.New("no vocabulary at the end")
}

// BiasWords are the words of the project's own texts (topic keywords,
// title, prompt) worth biasing the recogniser toward: lower-case letters
// and apostrophes only, not English stop words, each once.
func BiasWords(texts ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
			w = strings.Trim(w, "'")
			if len(w) < 3 || StopWord(w) || seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
