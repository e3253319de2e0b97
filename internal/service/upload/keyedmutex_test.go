package upload

import "testing"

// TestKeyedMutexForgets: a key's lock goes away with its last holder, so
// the map does not grow with every upload ever seen.
func TestKeyedMutexForgets(t *testing.T) {
	var k keyedMutex
	unlockA := k.lock("a")
	unlockB := k.lock("b") // another key does not wait for a
	if len(k.m) != 2 {
		t.Fatalf("%d keys held, want 2", len(k.m))
	}
	unlockA()
	unlockB()
	if len(k.m) != 0 {
		t.Errorf("%d keys left after every unlock, want 0", len(k.m))
	}
}
