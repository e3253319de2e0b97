package media

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

// gradientVideo is a silent w x h video whose luma rises from left to right, so the
// column a crop starts at can be read back from the rendered picture.
func gradientVideo(t *testing.T, seconds float64, w, h int) string {
	t.Helper()
	requireFFmpeg(t)
	path := filepath.Join(t.TempDir(), "gradient.mp4")
	src := fmt.Sprintf("nullsrc=s=%dx%d:r=25:d=%g,geq=lum='X*255/W':cb=128:cr=128,format=yuv420p", w, h, seconds)
	if out, err := toolexec.Command(context.Background(), "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", src,
		"-c:v", "libx264", "-preset", "veryfast", "-crf", "10", "-y", toolexec.LocalURL(path)).CombinedOutput(); err != nil {
		t.Fatalf("gradient video: %v: %s", err, out)
	}
	return path
}

// A follow path of hundreds of keys (a swaying speaker over a long clip) renders, and the
// crop window is where the path says: the export's middle column shows the source column
// at the path's centre.
func TestRenderFollowWithManyKeys(t *testing.T) {
	t.Parallel()
	const w, h, dur = 640, 360, 4.0
	src := gradientVideo(t, dur, w, h)
	var keys []PathKey
	for i := 0; i <= 400; i++ {
		tt := float64(i) * dur / 400
		keys = append(keys, PathKey{T: tt, X: 0.5 + 0.3*math.Sin(2*math.Pi*tt/dur)})
	}
	frames, fw, fh := renderFaces(t, src, 0, dur, RenderOptions{Aspect: "portrait", Layout: LayoutFollow, Follow: keys}, 0)
	row := grayFrames(t, src, 0, w, h)[0][h/2*w : h/2*w+w]
	cw, _, _, _ := cropBox(w, h, 9.0/16, 0.5)
	checked := 0
	for i := 0; i < len(frames); i += 10 {
		tc := float64(i) / 25
		// The middle column's luma, matched to the source row, is the window's centre.
		var sum float64
		for y := range fh {
			sum += float64(frames[i][y*fw+fw/2])
		}
		luma := sum / float64(fh)
		best := 0
		for x := range row {
			if math.Abs(float64(row[x])-luma) < math.Abs(float64(row[best])-luma) {
				best = x
			}
		}
		want := min(float64(w-cw/2), max(float64(cw/2), pathAt(keys, tc)*w))
		if math.Abs(float64(best)-want) > 8 {
			t.Errorf("t=%.2f: window centre at x=%d, want %.0f", tc, best, want)
		}
		checked++
	}
	if checked < 8 {
		t.Fatalf("checked %d frames, want at least 8", checked)
	}
}

// windowCentre is where in the source (pixels) the crop window of a rendered frame is
// centred: its middle column's luma matched against the gradient's row.
func windowCentre(frame []byte, fw, fh int, row []byte) int {
	var sum float64
	for y := range fh {
		sum += float64(frame[y*fw+fw/2])
	}
	luma := sum / float64(fh)
	best := 0
	for x := range row {
		if math.Abs(float64(row[x])-luma) < math.Abs(float64(row[best])-luma) {
			best = x
		}
	}
	return best
}

// A clip of several Keep pieces whose lengths are not whole frames: concat plays each
// piece's whole frames, and the layout's clip times follow the same frames, so the
// window steps at every piece join on the join's first frame, however many came before.
func TestRenderKeepPiecesStepOnTheirFrames(t *testing.T) {
	t.Parallel()
	const w, h, fps = 640, 360, 25
	src := gradientVideo(t, 10, w, h)
	// Six pieces of 0.41 s, each starting on a frame: 11 frames (0.44 s) each.
	var keep []Interval
	var path []PathKey
	xs := []float64{0.3, 0.7}
	for k := range 6 {
		s := 1.6 * float64(k)
		keep = append(keep, Interval{s, s + 0.41})
		path = append(path, PathKey{s, xs[k%2]}, PathKey{s + 1, xs[k%2]})
	}
	frames, fw, fh := renderFaces(t, src, 0, keep[len(keep)-1].End, RenderOptions{Aspect: "portrait", Layout: LayoutFollow, Follow: path, Keep: keep}, 0)
	if len(frames) != 66 {
		t.Errorf("%d frames, want 6 pieces of 11", len(frames))
	}
	row := grayFrames(t, src, 0, w, h)[0][h/2*w : h/2*w+w]
	for n, fr := range frames {
		want := xs[(n/11)%2] * w
		if got := windowCentre(fr, fw, fh, row); math.Abs(float64(got)-want) > 8 {
			t.Errorf("frame %d (piece %d): window centre at x=%d, want %.0f", n, n/11, got, want)
		}
	}
}
