package toolexectest

import (
	"os"
	"strconv"
	"strings"
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
