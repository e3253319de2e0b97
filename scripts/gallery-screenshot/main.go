// Command gallery-screenshot makes the README's picture of clipperd's
// gallery: it starts clipperd in a temporary directory, lets it clip a
// generated talk the way examples/quickstart does (portrait clips of 10 to
// 30 seconds), logs in to the gallery in a headless Chromium and saves the
// project page as a PNG.
//
//	go run ./scripts/gallery-screenshot -out assets/gallery.png   (make gallery-screenshot)
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/gallerybrowser"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/testvideo"
)

func main() {
	out := flag.String("out", "assets/gallery.png", "path of the PNG to write")
	width := flag.Int("width", 1280, "width of the browser window in pixels")
	height := flag.Int("height", 960, "height of the browser window, and so of the picture, in pixels")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *out, int64(*width), int64(*height)); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out string, width, height int64) error {
	dir, err := os.MkdirTemp("", "gallery-screenshot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	video := filepath.Join(dir, "talk.mp4")
	log.Print("generating a 75 s talk")
	if err := testvideo.Generate(ctx, video, testvideo.Options{Duration: 75 * time.Second, Width: 1280, Height: 720}); err != nil {
		return err
	}
	key := store.NewSecret("ck_")
	srv, err := server.Start(ctx, server.Config{Listen: "127.0.0.1:0", DataDir: filepath.Join(dir, "data"),
		APIKey: key, ASR: transcribe.DefaultKind()})
	if err != nil {
		return err
	}
	defer srv.Close()

	log.Printf("clipping it with clipperd at %s", srv.URL())
	p, err := gallerybrowser.FinishProject(ctx, srv.URL(), key, video, apitypes.CreateProjectRequest{
		UploadedVideoAttr: &apitypes.UploadedVideoAttr{Title: "Keynote: the most important lesson"},
		CurationPref:      &apitypes.CurationPref{ClipDurations: [][2]float64{{10, 30}}},
		RenderPref:        &apitypes.RenderPref{LayoutAspectRatio: "portrait"},
	})
	if err != nil {
		return err
	}

	browser, closeBrowser, err := gallerybrowser.Start(ctx)
	if err != nil {
		return err
	}
	defer closeBrowser()
	shot, err := projectPage(browser, srv.URL(), key, p.ID, width, height)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		return err
	}
	log.Printf("wrote %s (%d bytes)", out, len(shot))
	return nil
}

// projectPage logs in, opens the project's page and captures the window once
// every player shows a frame from a second into its clip (the first frame
// is often black).
func projectPage(ctx context.Context, base, key, projectID string, width, height int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		return nil, err
	}
	if resp, err := gallerybrowser.Login(ctx, base, key); err != nil {
		return nil, err
	} else if resp.Status != http.StatusOK {
		return nil, fmt.Errorf("logging in answered %d", resp.Status)
	}
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(base+"/ui/projects/"+projectID))
	if err != nil {
		return nil, err
	}
	if resp.Status != http.StatusOK {
		return nil, fmt.Errorf("the project page answered %d", resp.Status)
	}
	const seek = `Promise.all([...document.querySelectorAll('video')].map(v => new Promise(done => {
		const at = () => { v.addEventListener('seeked', done, {once: true}); v.currentTime = Math.min(1, v.duration / 2) };
		v.addEventListener('error', done, {once: true});
		v.readyState >= HTMLMediaElement.HAVE_METADATA ? at() : v.addEventListener('loadedmetadata', at, {once: true});
	}))).then(() => true)`
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](seek, chromedp.EvalAwaitPromise)); err != nil {
		return nil, fmt.Errorf("showing the clips' frames: %w", err)
	}
	return chromedp.Run(ctx, chromedp.CaptureScreenshot())
}
