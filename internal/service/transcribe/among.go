package transcribe

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// PocketsphinxDict is the pronouncing dictionary of pocketsphinx's en-us
// model (Debian's pocketsphinx-en-us), the one pocketsphinx_continuous
// loads by default.
const PocketsphinxDict = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"

// Pronunciation is a dictionary entry for DecodeAmong: a word and its
// phones in the dictionary's phone set ("SH IY T").
type Pronunciation struct {
	Word, Phones string
}

// DecodeAmong recognises wavPath (in chunks cut at pauses, as Transcribe)
// with a grammar that allows any sequence of words, each drawn from words
// with the same weight, and nothing else: which of them the sound fits
// best, with no language model preferring the common ones. A word is heard
// by its dictionary pronunciations and those of extra of the same word (a
// word only in extra is heard by those); words with neither, or with
// characters other than letters and apostrophes, are left out. Words are
// returned as Transcribe's, timed by the decode.
func (p *Pocketsphinx) DecodeAmong(ctx context.Context, wavPath string, words []string, extra []Pronunciation) ([]Word, error) {
	dict, err := loadDict()
	if err != nil {
		return nil, err
	}
	var entries, vocab []string
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.ToLower(w)
		if seen[w] || !grammarToken(w) {
			continue
		}
		seen[w] = true
		lines := slices.Clone(dict[w])
		for _, e := range extra {
			if strings.EqualFold(e.Word, w) && strings.TrimSpace(e.Phones) != "" {
				name := w
				if len(lines) > 0 {
					name = fmt.Sprintf("%s(%d)", w, len(lines)+1)
				}
				lines = append(lines, name+" "+strings.ToUpper(strings.Join(strings.Fields(e.Phones), " ")))
			}
		}
		if len(lines) == 0 {
			continue
		}
		entries = append(entries, lines...)
		vocab = append(vocab, w)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("pocketsphinx: none of the words %q is in the dictionary", words)
	}
	grammar := "#JSGF V1.0;\ngrammar among;\npublic <words> = ( " + strings.Join(vocab, " | ") + " )* ;\n"
	return p.decode(ctx, wavPath, func(dir string) ([]string, error) {
		d, g := filepath.Join(dir, "among.dict"), filepath.Join(dir, "among.gram")
		if err := os.WriteFile(d, []byte(strings.Join(entries, "\n")+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("pocketsphinx: dictionary: %w", err)
		}
		if err := os.WriteFile(g, []byte(grammar), 0o600); err != nil {
			return nil, fmt.Errorf("pocketsphinx: grammar: %w", err)
		}
		return []string{"-dict", d, "-jsgf", g}, nil
	})
}

// grammarToken reports whether w is a word DecodeAmong can put in its
// grammar as it is: letters and apostrophes.
func grammarToken(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if (r < 'a' || r > 'z') && r != '\'' {
			return false
		}
	}
	return true
}

var (
	dictOnce  sync.Once
	dictLines map[string][]string
	dictErr   error
)

// loadDict reads PocketsphinxDict once: each word's lines, its
// pronunciations ("read READ...", "read(2) ...").
func loadDict() (map[string][]string, error) {
	dictOnce.Do(func() {
		f, err := os.Open(PocketsphinxDict)
		if err != nil {
			dictErr = fmt.Errorf("pocketsphinx dictionary: %w", err)
			return
		}
		defer f.Close()
		dictLines = map[string][]string{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			name, _, ok := strings.Cut(line, " ")
			if !ok {
				continue
			}
			word := name
			if i := strings.IndexByte(name, '('); i > 0 {
				word = name[:i]
			}
			dictLines[word] = append(dictLines[word], line)
		}
		dictErr = sc.Err()
	})
	return dictLines, dictErr
}
