package toolexectest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Running reports whether process pid runs (Linux: /proc). A zombie, dead but
// not yet reaped by an init that in a container may never reap it, counts as
// dead.
func Running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// WaitGone waits until process pid no longer runs, failing tb when it still
// does after limit: a bound that turns a process that never goes into a
// failure instead of a hang, not a measure of how fast it goes.
func WaitGone(tb testing.TB, pid int, limit time.Duration, what string) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	for Running(pid) {
		if time.Now().After(deadline) {
			tb.Fatalf("%s (pid %d) still runs %s after its parent died", what, pid, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
