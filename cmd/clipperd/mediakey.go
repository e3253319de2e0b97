package main

import (
	"context"
	"flag"
	"fmt"
	"io"
)

// mediaKeyRotate replaces the key that signs media addresses: every address
// handed out so far stops working (403) within seconds, also while the
// server runs on the same data directory, and the next reads of clips hand
// out new ones. It is how a leaked link is revoked.
func mediaKeyRotate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("media-key rotate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := installationFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	st, err := state.open(ctx)
	if err != nil {
		return err
	}
	err = st.RotateMediaKey(ctx)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, "rotated the media key: every media address handed out so far no longer works")
	return err
}
