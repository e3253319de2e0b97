package media

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// metricAliases are families the brand templates name that Debian does not ship,
// drawn with the installed font of the same metrics (fonts-liberation2).
var metricAliases = map[string]string{
	"arial":           "Liberation Sans",
	"helvetica":       "Liberation Sans",
	"times new roman": "Liberation Serif",
	"times":           "Liberation Serif",
	"courier new":     "Liberation Mono",
	"courier":         "Liberation Mono",
}

// fontResolver caches which families fontconfig has; each family is asked once.
type fontResolver struct {
	mu        sync.Mutex
	installed map[string]fcAnswer
	// has reports whether fontconfig knows the family; ok is false when it cannot
	// be asked (no fc-list), and the family is then passed to libass unchecked.
	has func(family string) (found, ok bool)
}

// fcAnswer is what fontconfig said of a family; ok is false when it could not be asked.
type fcAnswer struct{ found, ok bool }

var captionFonts = &fontResolver{installed: map[string]fcAnswer{}, has: fcHasFamily}

// resolve names the family captions are drawn with: the requested family when it is
// installed, else its metric-compatible alias when that is, else DejaVu Sans
// (fontconfig alone would pick an arbitrary "nearest" face).
func (r *fontResolver) resolve(family string) string {
	family = strings.TrimSpace(family)
	if family == "" {
		return defaultCaptionFont
	}
	candidates := []string{family}
	if alias, ok := metricAliases[strings.ToLower(family)]; ok {
		candidates = append(candidates, alias)
	}
	for _, c := range candidates {
		found, ok := r.lookup(c)
		if !ok {
			return family
		}
		if found {
			return c
		}
	}
	return defaultCaptionFont
}

func (r *fontResolver) lookup(family string) (found, ok bool) {
	key := strings.ToLower(family)
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, seen := r.installed[key]; seen {
		return a.found, a.ok
	}
	found, ok = r.has(family)
	r.installed[key] = fcAnswer{found, ok}
	return found, ok
}

// fcHasFamily asks fontconfig for faces of exactly this family (any of its names).
func fcHasFamily(family string) (found, ok bool) {
	// fontconfig patterns escape '-', ':', ',' and '\' with a backslash.
	pattern := strings.NewReplacer(`\`, `\\`, "-", `\-`, ":", `\:`, ",", `\,`).Replace(family)
	// fc-list answers in milliseconds; the bound keeps a hung one from holding
	// every caption render behind the resolver's lock.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := toolexec.Command(ctx, "fc-list", ":family="+pattern, "family").Output()
	if err != nil {
		return false, false
	}
	return len(bytes.TrimSpace(out)) > 0, true
}
