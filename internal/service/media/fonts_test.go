package media

import (
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

func TestFontResolverFallsBackToAliasThenDefault(t *testing.T) {
	t.Parallel()
	installed := map[string]bool{"Lato": true, "Liberation Sans": true, "DejaVu Sans": true}
	asked := map[string]int{}
	r := &fontResolver{installed: map[string]fcAnswer{}, has: func(f string) (bool, bool) {
		asked[f]++
		return installed[f], true
	}}
	cases := map[string]string{
		"":             "DejaVu Sans",
		"Lato":         "Lato",
		" Lato ":       "Lato",
		"Arial":        "Liberation Sans", // metric alias
		"Helvetica":    "Liberation Sans",
		"Montserrat":   "DejaVu Sans", // not installed, no alias: the documented default
		"Courier New":  "DejaVu Sans", // alias not installed either
		"Comic Sans X": "DejaVu Sans",
	}
	for in, want := range cases {
		if got := r.resolve(in); got != want {
			t.Errorf("resolve(%q) = %q, want %q", in, got, want)
		}
	}
	r.resolve("Lato")
	if asked["Lato"] != 1 {
		t.Errorf("fontconfig asked %d times about Lato, want once (cached)", asked["Lato"])
	}
}

func TestFontResolverWithoutFontconfigPassesTheFamilyOn(t *testing.T) {
	t.Parallel()
	asked := 0
	r := &fontResolver{installed: map[string]fcAnswer{}, has: func(string) (bool, bool) { asked++; return false, false }}
	for range 2 {
		if got := r.resolve("Montserrat"); got != "Montserrat" {
			t.Errorf("resolve = %q, want the family unchanged when fontconfig cannot be asked", got)
		}
	}
	if asked != 1 {
		t.Errorf("asked %d times, want once: not being able to ask is remembered too", asked)
	}
}

// TestFcHasFamilyAsksFontconfig runs the real fc-list: DejaVu Sans is what every
// Debian with ffmpeg has (fonts-dejavu-core), and a made-up family is absent.
func TestFcHasFamilyAsksFontconfig(t *testing.T) {
	t.Parallel()
	toolexectest.RequireTools(t, "fc-list")
	if found, ok := fcHasFamily("DejaVu Sans"); !ok || !found {
		t.Errorf("fcHasFamily(DejaVu Sans) = %v, %v; want true, true", found, ok)
	}
	if found, ok := fcHasFamily("No Such Family: x-y,z"); !ok || found {
		t.Errorf("fcHasFamily(made-up) = %v, %v; want false, true", found, ok)
	}
}
