package media

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// hasFilter reports whether this ffmpeg build has the named filter (checked once per name).
func hasFilter(name string) bool {
	filtersOnce.Do(func() {
		out, err := toolexec.Command(context.Background(), "ffmpeg", "-hide_banner", "-filters").Output()
		if err == nil {
			filterList = string(out)
		}
	})
	for _, line := range strings.Split(filterList, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[1] == name {
			return true
		}
	}
	return false
}

var (
	filtersOnce sync.Once
	filterList  string
	fontOnce    sync.Once
	fontPath    string
)

// fontFile finds a sans-serif font for watermarks: fontconfig's choice, else a few common
// paths, else "" (drawtext then asks fontconfig itself, if built with it).
func fontFile() string {
	fontOnce.Do(func() {
		if out, err := toolexec.Command(context.Background(), "fc-match", "-f", "%{file}", "sans-serif:bold").Output(); err == nil {
			if p := string(bytes.TrimSpace(out)); p != "" && fileExists(p) {
				fontPath = p
				return
			}
		}
		for _, p := range []string{
			"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
			"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
			"/usr/share/fonts/TTF/DejaVuSans.ttf",
			"/System/Library/Fonts/Helvetica.ttc",
		} {
			if fileExists(p) {
				fontPath = p
				return
			}
		}
	})
	return fontPath
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
