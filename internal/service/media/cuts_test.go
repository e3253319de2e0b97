package media

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe/speechtest"
)

func TestKeptRanges(t *testing.T) {
	span := Interval{10, 20}
	cases := []struct {
		name string
		cuts []Interval
		want []Interval
	}{
		{"no cuts", nil, []Interval{{10, 20}}},
		{"one inside", []Interval{{12, 13}}, []Interval{{10, 12}, {13, 20}}},
		{"unsorted and overlapping", []Interval{{15, 16}, {12, 13}, {12.5, 14}}, []Interval{{10, 12}, {14, 15}, {16, 20}}},
		{"at the edges and outside", []Interval{{8, 10.5}, {19.5, 25}, {30, 31}, {1, 2}}, []Interval{{10.5, 19.5}}},
		{"a sliver between cuts goes too", []Interval{{12, 13}, {13.05, 14}}, []Interval{{10, 12}, {14, 20}}},
		{"empty cut ignored", []Interval{{12, 12}}, []Interval{{10, 20}}},
		{"everything cut", []Interval{{9, 21}}, nil},
	}
	for _, c := range cases {
		if got := KeptRanges(span, c.cuts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if l := Length([]Interval{{1, 2}, {3, 4.5}}); l != 2.5 {
		t.Errorf("Length = %v", l)
	}
}

// Cutting a spoken "um" out of a clip shortens it by the filler's length.
func TestRenderClipCutsRanges(t *testing.T) {
	dir := t.TempDir()
	src, spans := speechtest.Video(t, dir, []string{"the garden", "um", "needs water"}, 0.3)
	h := Highlight{Start: spans[0].Start, End: spans[2].End, CenterX: 0.5}
	filler := Interval{spans[1].Start, spans[1].End}
	keep := KeptRanges(Interval{h.Start, h.End}, []Interval{filler})
	render := func(name string, keep []Interval) float64 {
		exp, pre := filepath.Join(dir, name+".mp4"), filepath.Join(dir, name+"-p.mp4")
		res, err := RenderClip(context.Background(), src, h, exp, pre, RenderOptions{Aspect: "square", PreviewHeight: 240, Keep: keep})
		if err != nil {
			t.Fatal(err)
		}
		if p := probeFile(t, pre); math.Abs(p.DurationSec-res.DurationSec) > 0.1 {
			t.Errorf("%s: preview %.3f s, export %.3f s", name, p.DurationSec, res.DurationSec)
		}
		if p := probeFile(t, exp); !p.HasAudio {
			t.Errorf("%s: export without audio", name)
		}
		return res.DurationSec
	}
	full, cut := render("full", nil), render("cut", keep)
	fl := filler.End - filler.Start
	t.Logf("full %.3f s, cut %.3f s: shorter by %.3f s; the filler lasts %.3f s", full, cut, full-cut, fl)
	if math.Abs((full-cut)-fl) > 0.1 {
		t.Errorf("cut clip is %.3f s shorter, want the filler's %.3f s", full-cut, fl)
	}
}
