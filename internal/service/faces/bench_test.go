package faces

import "testing"

// BenchmarkDetect is a whole analysis-size frame (320x180) with one face.
func BenchmarkDetect(b *testing.B) {
	frame, _, _ := smallFace(b)
	for b.Loop() {
		if len(Detect(frame, 320, 180)) != 1 {
			b.Fatal("the face is not found")
		}
	}
}

// BenchmarkDetectNear is the same frame searched around the face only.
func BenchmarkDetectNear(b *testing.B) {
	frame, _, _ := smallFace(b)
	near := Detect(frame, 320, 180)
	for b.Loop() {
		if len(DetectNear(frame, 320, 180, near)) != 1 {
			b.Fatal("the face is not found")
		}
	}
}
