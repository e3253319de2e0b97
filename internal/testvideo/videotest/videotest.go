// Package videotest shares generated test videos between the tests of a
// package: each is made once per test binary, since generating is the slow
// part. It checks the tools first with toolexectest.RequireMedia.
//
// A package that uses Shared calls Main from its TestMain, so the videos are
// removed when its tests end:
//
//	func TestMain(m *testing.M) { videotest.Main(m) }
package videotest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

var shared struct {
	mu     sync.Mutex
	dir    string
	videos map[testvideo.Options]*video
}

type video struct {
	once   sync.Once
	path   string
	layout *testvideo.Layout
	err    error
}

// Shared returns a video generated with opts, made once per test binary
// however many tests ask for it, and its layout. Tests must treat the file
// as read-only (hard-link or copy it to change it). A missing tool skips
// the test, or fails it in CI.
func Shared(tb testing.TB, opts testvideo.Options) (string, *testvideo.Layout) {
	tb.Helper()
	toolexectest.RequireMedia(tb)
	if opts.Voice == testvideo.VoiceFestival {
		toolexectest.RequireTools(tb, "festival")
	}
	v, err := sharedVideo(opts)
	if err == nil {
		v.once.Do(func() {
			// Generation may outlive the test that asked first; it serves them all.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			v.layout, v.err = testvideo.GenerateWithLayout(ctx, v.path, opts)
		})
		err = v.err
	}
	if err != nil {
		tb.Fatalf("generating the shared test video %+v: %v", opts, err)
	}
	return v.path, v.layout
}

// SharedBytes is Shared returning the file's contents.
func SharedBytes(tb testing.TB, opts testvideo.Options) []byte {
	tb.Helper()
	path, _ := Shared(tb, opts)
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("reading the shared test video: %v", err)
	}
	return b
}

func sharedVideo(opts testvideo.Options) (*video, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.dir == "" {
		dir, err := os.MkdirTemp("", "videotest-")
		if err != nil {
			return nil, err
		}
		shared.dir, shared.videos = dir, map[testvideo.Options]*video{}
	}
	v, ok := shared.videos[opts]
	if !ok {
		sum := sha256.Sum256(fmt.Appendf(nil, "%+v", opts))
		v = &video{path: filepath.Join(shared.dir, hex.EncodeToString(sum[:8])+".mp4")}
		shared.videos[opts] = v
	}
	return v, nil
}

// Main runs the package's tests, then removes the shared videos and runs
// the package's own cleanups (Main exits, so deferred calls would not run).
func Main(m *testing.M, cleanups ...func()) {
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	shared.mu.Lock()
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	shared.mu.Unlock()
	os.Exit(code)
}
