package pipeline

import (
	"errors"
	"fmt"
	"os/exec"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// failure marks how a stage error is handled: a permanent one (bad input,
// a limit) leaves the project STALLED for good; anything else is transient
// and retried with backoff. A tool that is not installed (missingTool) is
// the server's fault, not the project's: it is retried without counting
// against the project's retries, until the operator installs it.
type failure struct {
	err       error
	permanent bool
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// permanentf builds a permanent failure; the text is what the user reads in
// the project's error, so it names the field or limit at fault.
func permanentf(format string, args ...any) error {
	return &failure{err: fmt.Errorf(format, args...), permanent: true}
}

// isPermanent reports whether err must not be retried.
func isPermanent(err error) bool {
	var f *failure
	return errors.As(err, &f) && f.permanent
}

// missingTool reports whether err is an external tool (ffmpeg, ffprobe)
// that is not on PATH.
func missingTool(err error) bool { return errors.Is(err, exec.ErrNotFound) }

// interruptedError is the interruption of a run a stop cut short.
func interruptedError(stage apitypes.Stage) error {
	return fmt.Errorf("interrupted: clipperd stopped during %s", stage)
}

// userError shows a message written for the user while keeping the cause
// in the chain for errors.Is and the logs.
type userError struct {
	msg   string
	cause error
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.cause }
