package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// keysCreate adds an API key for an org and user and prints it as the last
// word of its output, so scripts can take it with `awk '{print $NF}'`. This
// is the only time the key is shown: the store keeps its hash. It is
// safe while the server runs on the same data directory (SQLite WAL with a
// busy timeout).
func keysCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := installationFlags(fs)
	org := fs.String("org", "", "organization id the key acts for (required)")
	user := fs.String("user", "", "user id the key acts for (required)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	*org, *user = strings.TrimSpace(*org), strings.TrimSpace(*user)
	if *org == "" || *user == "" {
		return fmt.Errorf("%w: keys create: --org and --user are required", errUsage)
	}
	st, err := state.open(ctx)
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
// gallery sessions end. The one argument, before or after the flags, is the
// key or the prefix `keys list` shows for it (when no other key has that
// prefix). Like keys create it is safe while the server runs.
func keysRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys revoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := installationFlags(fs)
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
		return fmt.Errorf("%w: keys revoke: the KEY (or its prefix from keys list) to revoke is required", errUsage)
	}
	st, err := state.open(ctx)
	if err != nil {
		return err
	}
	owner, err := findKey(ctx, st, key)
	if err == nil {
		err = st.RevokeKey(ctx, owner.Hash)
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
	_, err = fmt.Fprintf(stdout, "revoked the API key %s... of org %s user %s\n", owner.Prefix, owner.OrgID, owner.UserID)
	return err
}

// keyReader is what findKey reads of the store.
type keyReader interface {
	LookupKey(ctx context.Context, key string) (store.Key, error)
	Keys(ctx context.Context) ([]store.KeyInfo, error)
}

// findKey is the key named by keyOrPrefix: the key itself, or the prefix
// of exactly one key.
func findKey(ctx context.Context, st keyReader, keyOrPrefix string) (store.Key, error) {
	k, err := st.LookupKey(ctx, keyOrPrefix)
	if !errors.Is(err, store.ErrNotFound) {
		return k, err
	}
	all, err := st.Keys(ctx)
	if err != nil {
		return store.Key{}, err
	}
	var found []store.Key
	for _, k := range all {
		if k.Prefix == keyOrPrefix {
			found = append(found, k.Key)
		}
	}
	switch len(found) {
	case 0:
		return store.Key{}, store.ErrNotFound
	case 1:
		return found[0], nil
	}
	return store.Key{}, fmt.Errorf("keys revoke: %d keys start with %s; give the whole key", len(found), keyOrPrefix)
}

// keysList prints every key's prefix, organization, user and creation time
// (never a key: the store cannot read them back).
func keysList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := installationFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	st, err := state.open(ctx)
	if err != nil {
		return err
	}
	keys, err := st.Keys(ctx)
	if cerr := st.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PREFIX\tORG\tUSER\tCREATED")
	for _, k := range keys {
		fmt.Fprintf(w, "%s...\t%s\t%s\t%s\n", k.Prefix, k.OrgID, k.UserID, store.Timestamp(k.CreatedAt))
	}
	return w.Flush()
}
