package transcribe

import "strings"

// Fillers are the hesitation words a clip loses with
// quickstartConfig.enableRemoveFillerWords, as the recogniser spells them.
var Fillers = []string{"um", "uh", "er", "ah", "erm", "uhm", "umm", "hmm", "mm", "eh"}

// IsFiller reports whether w is one of Fillers (case-insensitively).
func IsFiller(w string) bool {
	w = strings.ToLower(strings.TrimSpace(w))
	for _, f := range Fillers {
		if w == f {
			return true
		}
	}
	return false
}
