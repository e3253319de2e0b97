// Package datadirtest opens, for tests, the store of a data directory a
// clipperd serves, with the master key that clipperd resolved when given
// none: the default key file of the user's configuration directory, or an
// older installation's key file in the directory. Opening it without a key
// would make a second key beside the database that opens nothing.
package datadirtest

import (
	"context"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// OpenContext opens dir's store with the key clipperd would resolve.
func OpenContext(ctx context.Context, dir string) (*store.Store, error) {
	key, _, err := masterkey.Resolve("", "", dir)
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, dir, store.WithMasterKey(key))
}

// Open is OpenContext for a test, which fails on an error. The caller
// closes the store.
func Open(tb testing.TB, dir string) *store.Store {
	tb.Helper()
	st, err := OpenContext(tb.Context(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}
