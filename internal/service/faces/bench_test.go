package faces

import "testing"

// BenchmarkDetect is one analysis-size frame (320x180) with the sample face in it.
func BenchmarkDetect(b *testing.B) {
	g, w, h := sampleGray(b)
	const fw, fh = 320, 180
	frame := make([]byte, fw*fh)
	for i := range frame {
		frame[i] = byte(i * 7 % 200)
	}
	for y := range h / 4 {
		for x := range w / 4 {
			frame[(40+y)*fw+200+x] = g[(y*4)*w+x*4]
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if len(Detect(frame, fw, fh)) != 1 {
			b.Fatal("the face is not found")
		}
	}
}
