package reqlog

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestLogsMethodPathAndStatusButNotTheQuery(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	observed := 0
	h := Handler(log, func(_ *http.Request, status int, _ time.Duration) { observed = status },
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "gone", http.StatusGone)
		}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/ui/x?sig=secret", nil))
	if observed != http.StatusGone {
		t.Errorf("the observer was told status %d, want 410", observed)
	}
	line := buf.String()
	for _, want := range []string{`msg="http request"`, "method=GET", "path=/ui/x", "status=410"} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %s", line, want)
		}
	}
	if strings.Contains(line, "secret") {
		t.Errorf("log %q has the query", line)
	}
}

func TestLongPathsAreCut(t *testing.T) {
	p := "/" + strings.Repeat("a", 200)
	if got := loggedPath(p); len(got) > maxLoggedPath+30 || !strings.HasSuffix(got, "...(81 more bytes)") {
		t.Fatalf("loggedPath: %q", got)
	}
}
