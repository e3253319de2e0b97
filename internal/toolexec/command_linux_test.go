//go:build linux

package toolexec

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// helperEnv makes the test binary act as a clipperd that starts a child and
// then is killed.
const helperEnv = "CLIPPERD_TOOLEXEC_PDEATHSIG_HELPER"

// A child started with Command dies when its parent is killed with
// SIGKILL, which no context cancellation can see.
func TestCommandChildDiesWithParent(t *testing.T) {
	if os.Getenv(helperEnv) == "1" {
		child := Command(context.Background(), "sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("child", child.Process.Pid)
		// Wait to be killed. A timer, not select{}: with no goroutine
		// runnable and no timer pending the runtime ends the helper as
		// deadlocked, and the child dies with it before the check.
		time.Sleep(time.Hour)
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command to run as the child")
	}
	parent := exec.Command(os.Args[0], "-test.run=^TestCommandChildDiesWithParent$")
	parent.Env = append(os.Environ(), helperEnv+"=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = parent.Process.Kill()
		t.Fatalf("helper said nothing: %v", err)
	}
	pidText, ok := strings.CutPrefix(strings.TrimSpace(line), "child ")
	pid, convErr := strconv.Atoi(pidText)
	if !ok || convErr != nil {
		_ = parent.Process.Kill()
		t.Fatalf("helper: %q", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // if the test fails, leave nothing behind
	if !toolexectest.Running(pid) {
		t.Fatalf("child %d is not running while its parent lives", pid)
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	// The kernel signals the child as the parent exits; give the (possibly
	// slow) machine time to deliver it before calling it a failure.
	toolexectest.WaitGone(t, pid, 20*time.Second, "the child")
}
