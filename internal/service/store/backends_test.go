package store

import (
	"context"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// backend is one engine the store's suite runs on. Every test that holds
// on both engines runs through forEachBackend (the pattern of litestream's
// replica clients and River's driver tests), so a rule that only one
// engine keeps is found here.
type backend struct{ storetest.Engine }

// open opens a new store of b for t, closed when t ends, and returns its
// location for a test that reopens it.
func (b backend) open(t *testing.T) (*Store, string) {
	t.Helper()
	loc := b.Location(t)
	s, err := Open(context.Background(), loc, WithMasterKey(testMasterKey))
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine() != b.Name {
		t.Fatalf("store at %s runs on %s, want %s", loc, s.Engine(), b.Name)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, loc
}

// testMasterKey seals the secrets of the suite's stores (a SQLite store
// opened without one makes a key file beside its database).
var testMasterKey = storetest.MasterKey()

// forEachBackend runs fn as a parallel subtest on each engine.
func forEachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	storetest.ForEachEngine(t, func(t *testing.T, e storetest.Engine) { fn(t, backend{e}) })
}

// openTest is a new SQLite store, for the tests of what only SQLite has
// (its page cap, its query plans, its older data directories).
func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	return backend{storetest.Engines[0]}.open(t)
}
