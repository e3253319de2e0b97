//go:build linux

package toolexec

import (
	"errors"
	"os/exec"
	"syscall"
)

// bindToParent puts the child in a process group of its own and binds it to
// clipperd's life:
//
//   - Its own group: a signal to clipperd's group (what `timeout` or a
//     shell's Ctrl-C send to every process of it) reaches clipperd alone,
//     which then stops its runs gracefully; the tool is not killed under a
//     run that would count its death a failure. (systemd's
//     KillMode=control-group signals the unit's whole cgroup regardless:
//     the shipped units set KillMode=mixed.)
//   - Cancel kills the whole group, so a tool that started tools of its own
//     (a shell of --asr-command) leaves none of them running when ctx ends.
//   - Pdeathsig: the kernel SIGKILLs the child when its parent dies, which
//     no context can see. The kernel ties this to the thread that started
//     the child; the Go runtime does not end threads under running
//     goroutines, so in practice that is the life of clipperd.
func bindToParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup SIGKILLs the process group cmd's child leads (its pid is the
// group's id, Setpgid), or the child alone if the group is gone already.
func killGroup(cmd *exec.Cmd) error {
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		// exec.Cmd reads os.ErrProcessDone as "nothing was left to cancel".
		return cmd.Process.Kill()
	}
	return err
}
