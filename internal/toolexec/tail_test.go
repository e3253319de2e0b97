package toolexec

import (
	"fmt"
	"strings"
	"testing"
)

func TestTailKeepsTheEndBounded(t *testing.T) {
	var tl Tail
	for i := range 5000 {
		fmt.Fprintf(&tl, "line %d\n", i)
	}
	if n := len(tl.String()); n > 2*tailKeep {
		t.Fatalf("kept %d bytes, want at most %d", n, 2*tailKeep)
	}
	if got := tl.LastLines(2); got != "line 4998 | line 4999" {
		t.Fatalf("LastLines(2) = %q", got)
	}
	var empty Tail
	fmt.Fprint(&empty, "\n \n")
	if got := empty.LastLines(3); got != "" {
		t.Fatalf("blank output gave %q", got)
	}
	if !strings.HasSuffix(tl.String(), "line 4999") {
		t.Fatal("String lost the last line")
	}
}
