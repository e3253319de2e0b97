package main

import (
	"context"
	"errors"
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
	dir, database := storeFlags(fs)
	org := fs.String("org", "", "organization id the key acts for (required)")
	user := fs.String("user", "", "user id the key acts for (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	*org, *user = strings.TrimSpace(*org), strings.TrimSpace(*user)
	if *org == "" || *user == "" {
		return fmt.Errorf("%w: keys create: --org and --user are required", errUsage)
	}
	st, err := openStore(ctx, *dir, *database)
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

// keysRevoke deletes an API key: the API refuses it from then on and its
// gallery sessions end. The key is the one argument, before or after the
// flags. Like keys create it is safe while the server runs.
func keysRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys revoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir, database := storeFlags(fs)
	var key string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		key, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: keys revoke: %w", errUsage, err)
	}
	if key == "" && fs.NArg() == 1 {
		key = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("%w: keys revoke: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if key = strings.TrimSpace(key); key == "" {
		return fmt.Errorf("%w: keys revoke: the KEY to revoke is required", errUsage)
	}
	st, err := openStore(ctx, *dir, *database)
	if err != nil {
		return err
	}
	owner, err := st.LookupKey(ctx, key)
	if err == nil {
		err = st.RevokeKey(ctx, key)
	}
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if errors.Is(err, store.ErrNotFound) {
		return errors.New("keys revoke: no such API key")
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "revoked the API key of org %s user %s\n", owner.OrgID, owner.UserID)
	return err
}
