// Package parentwatch ends a plugin process whose parent has gone. Terraform
// stops its provider processes when it exits normally, but a Terraform that
// crashes leaves them running, each holding its port and memory; a provider
// that watches its parent leaves nothing behind.
package parentwatch

import (
	"context"
	"os"
	"time"
)

// Watch calls gone, once, when the process's parent is no longer the one it
// had when Watch was called: on Unix an orphan is re-parented (to init or a
// subreaper), so its parent id changes. It returns at once and watches until
// ctx ends, looking every interval. A process started by init (parent 1) has
// no parent to lose and is not watched.
func Watch(ctx context.Context, every time.Duration, gone func()) {
	watch(ctx, every, os.Getppid, gone)
}

// watch is Watch with the parent id read by parent; it reports whether it
// watches.
func watch(ctx context.Context, every time.Duration, parent func() int, gone func()) bool {
	first := parent()
	if first <= 1 {
		return false
	}
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if parent() != first {
					gone()
					return
				}
			}
		}
	}()
	return true
}
