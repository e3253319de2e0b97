//go:build linux

package toolexec

import (
	"os/exec"
	"syscall"
)

// bindToParent has the kernel SIGKILL the child when its parent dies. The
// kernel ties this to the thread that started the child; the Go runtime
// does not end threads under running goroutines, so in practice that is
// the life of clipperd.
func bindToParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
