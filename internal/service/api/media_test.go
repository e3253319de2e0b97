package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMediaOddNamesAreNotFound: a NUL in the name or a name longer than a
// file name can be is a 404 like any other missing file (not a 500), and
// is logged at debug level only, without the whole path.
func TestMediaOddNamesAreNotFound(t *testing.T) {
	st, _ := keyedStore(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "media", "p1"), 0o755); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := New(Config{Store: st, DataDir: dir, PublicURL: "http://clipperd.test", Logger: logger})
	long := strings.Repeat("a", 5000)
	for _, path := range []string{"/media/p1/a%00b.mp4", "/media/p1%00/c1.mp4", "/media/p1/" + long + ".mp4", "/media/" + long + "/c1.mp4"} {
		logs.Reset()
		rec := send(t, h, http.MethodGet, path, "", "")
		wantAnswer(t, rec, http.StatusNotFound, errNotFound, "media file not found")
		for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			if !strings.Contains(line, "level=DEBUG") {
				t.Errorf("GET %.40s... logged above debug: %s", path, line)
			}
		}
		if strings.Contains(logs.String(), long) {
			t.Errorf("GET %.40s... logged the whole path", path)
		}
	}
}
