package storetest

import (
	"testing"
	"time"
)

// EventuallyBound is how long Eventually waits before it fails: a bound
// against a test that would hang, never a timing assertion, so it is as
// generous as the slowest wait of the suite on a loaded machine. In a
// synctest bubble it is logical time and passes in no time.
const EventuallyBound = 2 * time.Minute

// Eventually asks again after firstPoll, then twice as long each time up
// to maxPoll: quick for what is nearly done, and a condition that reads a
// store of one connection does not starve the work it waits for.
const (
	firstPoll = 5 * time.Millisecond
	maxPoll   = 200 * time.Millisecond
)

// Eventually waits until cond holds and fails tb, saying what it waited
// for, if cond still does not hold after EventuallyBound. It is the
// fallback where the code offers no event or channel to wait on.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(EventuallyBound)
	for wait := firstPoll; !cond(); wait = min(2*wait, maxPoll) {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %s for %s", EventuallyBound, what)
		}
		time.Sleep(wait)
	}
}
