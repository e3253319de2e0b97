//go:build linux

package toolexec

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
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

// groupHelperEnv makes the test binary act as a clipperd in a process group
// of its own that starts a tool, then is sent SIGTERM with its whole group.
const groupHelperEnv = "CLIPPERD_TOOLEXEC_GROUP_HELPER"

// A signal to clipperd's process group (what `timeout` sends) reaches
// clipperd, not the tool it runs: the tool is in a group of its own.
func TestCommandChildMissesItsParentsGroupSignal(t *testing.T) {
	if os.Getenv(groupHelperEnv) == "1" {
		signal.Ignore(syscall.SIGTERM) // clipperd handles it; the helper just outlives it
		child := Command(context.Background(), "sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("child", child.Process.Pid)
		time.Sleep(time.Hour) // until the test kills it
	}
	toolexectest.RequireTools(t, "sleep")
	helper := exec.Command(os.Args[0], "-test.run=^TestCommandChildMissesItsParentsGroupSignal$")
	helper.Env = append(os.Environ(), groupHelperEnv+"=1")
	helper.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, as clipperd's under systemd
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = helper.Process.Kill(); _ = helper.Wait() })
	pid := readChildPid(t, bufio.NewReader(out))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		t.Fatalf("child %d in process group %d (%v), want a group of its own (%d)", pid, pgid, err, pid)
	}
	if err := syscall.Kill(-helper.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// kill(2) has made the signal pending on every process of the group by
	// the time it returns: a child of the group would have it pending now,
	// or be dying of it.
	if !toolexectest.Running(pid) || pending(t, pid, syscall.SIGTERM) {
		t.Fatalf("child %d got its parent's group SIGTERM", pid)
	}
}

// pending reports whether sig is pending on process pid (/proc status'
// SigPnd or ShdPnd mask).
func pending(t *testing.T, pid int, sig syscall.Signal) bool {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false // gone: not pending any more
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		name, mask, ok := strings.Cut(line, ":")
		if !ok || (name != "SigPnd" && name != "ShdPnd") {
			continue
		}
		bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
		if err != nil {
			t.Fatalf("/proc/%d/status %s: %v", pid, line, err)
		}
		if bits&(1<<(uint(sig)-1)) != 0 {
			return true
		}
	}
	return false
}

// A cancelled context kills the tool's whole group: a tool that started
// one of its own (a shell running a command line) leaves no process
// running.
func TestCommandCancelKillsTheToolsGroup(t *testing.T) {
	toolexectest.RequireTools(t, "sh", "sleep")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The shell prints its background child's pid, then waits for it.
	cmd := Command(ctx, "sh", "-c", "sleep 300 & echo $!; wait")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shell := cmd.Process.Pid
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("shell said nothing: %v", err)
	}
	sleeper, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("shell: %q", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(sleeper, syscall.SIGKILL) })
	for _, pid := range []int{shell, sleeper} {
		if pgid, err := syscall.Getpgid(pid); err != nil || pgid != shell {
			t.Fatalf("process %d in group %d (%v), want the tool's own group %d", pid, pgid, err, shell)
		}
	}
	if own := syscall.Getpgrp(); own == shell {
		t.Fatalf("the tool leads the test's own group %d", own)
	}
	cancel()
	if err := cmd.Wait(); err == nil {
		t.Error("Wait: nil after the context was cancelled, want the kill's error")
	}
	toolexectest.WaitGone(t, shell, 20*time.Second, "the tool")
	toolexectest.WaitGone(t, sleeper, 20*time.Second, "the tool's own child")
}

// readChildPid reads the helper's "child PID" line.
func readChildPid(t *testing.T, lines *bufio.Reader) int {
	t.Helper()
	line, err := lines.ReadString('\n')
	if err != nil {
		t.Fatalf("helper said nothing: %v", err)
	}
	pidText, ok := strings.CutPrefix(strings.TrimSpace(line), "child ")
	pid, convErr := strconv.Atoi(pidText)
	if !ok || convErr != nil {
		t.Fatalf("helper: %q", line)
	}
	return pid
}
