package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// keysCreate adds an API key for an org and user and prints it as the last
// word of its output, so scripts can take it with `awk '{print $NF}'`. It is
// safe while the server runs on the same data directory (SQLite WAL with a
// busy timeout).
func keysCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data", "./clipperd-data", "data directory of the server")
	org := fs.String("org", "", "organization id the key acts for (required)")
	user := fs.String("user", "", "user id the key acts for (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	*org, *user = strings.TrimSpace(*org), strings.TrimSpace(*user)
	if *org == "" || *user == "" {
		return fmt.Errorf("%w: keys create: --org and --user are required", errUsage)
	}
	st, err := store.Open(ctx, *dir)
	if err != nil {
		return err
	}
	key, err := st.CreateKey(ctx, *org, *user)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "created API key for org %s user %s: %s\n", *org, *user, key)
	return err
}
