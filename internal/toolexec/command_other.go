//go:build !linux

package toolexec

import "os/exec"

// bindToParent does nothing where the kernel has no parent-death signal;
// there a cancelled context is what stops the child.
func bindToParent(*exec.Cmd) {}
