package backoff

import (
	"testing"
	"time"
)

func TestExponential(t *testing.T) {
	for _, tc := range []struct {
		n             int
		base, ceiling time.Duration
		want          time.Duration
	}{
		{n: 0, base: time.Second, ceiling: time.Minute, want: time.Second},
		{n: 1, base: time.Second, ceiling: time.Minute, want: time.Second},
		{n: 2, base: time.Second, ceiling: time.Minute, want: 2 * time.Second},
		{n: 4, base: time.Second, ceiling: time.Minute, want: 8 * time.Second},
		{n: 7, base: time.Second, ceiling: time.Minute, want: time.Minute},
		{n: 1000, base: time.Second, ceiling: time.Minute, want: time.Minute},
		{n: 1, base: 2 * time.Minute, ceiling: time.Minute, want: time.Minute},
		{n: 3, base: 0, ceiling: time.Minute, want: 0},
	} {
		if got := Exponential(tc.n, tc.base, tc.ceiling); got != tc.want {
			t.Errorf("Exponential(%d, %v, %v) = %v, want %v", tc.n, tc.base, tc.ceiling, got, tc.want)
		}
	}
}

func TestJitteredStaysInTheUpperHalf(t *testing.T) {
	for n := 1; n <= 8; n++ {
		full := Exponential(n, 100*time.Millisecond, 5*time.Second)
		for range 200 {
			got := Jittered(n, 100*time.Millisecond, 5*time.Second)
			if got < full/2 || got > full {
				t.Fatalf("Jittered(%d) = %v, want within [%v, %v]", n, got, full/2, full)
			}
		}
	}
	if got := Jittered(3, 0, time.Second); got != 0 {
		t.Fatalf("Jittered with zero base = %v, want 0", got)
	}
}

func TestRetry(t *testing.T) {
	def := Retry{Base: time.Second, Max: time.Minute, Attempts: 4}
	r := Retry{Base: 2 * time.Second}.Or(def)
	if r != (Retry{Base: 2 * time.Second, Max: time.Minute, Attempts: 4}) {
		t.Fatalf("Or = %+v", r)
	}
	for _, tc := range []struct {
		n      int
		wait   time.Duration
		giveUp bool
	}{
		{1, 2 * time.Second, false}, {2, 4 * time.Second, false}, {3, 8 * time.Second, false}, {4, 0, true}, {5, 0, true},
	} {
		if wait, giveUp := r.After(tc.n); wait != tc.wait || giveUp != tc.giveUp {
			t.Errorf("After(%d) = %v, %v; want %v, %v", tc.n, wait, giveUp, tc.wait, tc.giveUp)
		}
	}
}
