package store

import (
	"context"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// backend is one engine the store's suite runs on: where a fresh store of
// a test lives. Every test that holds on both engines runs through
// forEachBackend (the pattern of litestream's replica clients and River's
// driver tests), so a rule that only one engine keeps is found here.
type backend struct {
	name     string
	location func(testing.TB) string // a new, empty database for the test
}

var backends = []backend{
	{EngineSQLite, func(tb testing.TB) string { return tb.TempDir() }},
	{EnginePostgres, storetest.PostgresURL},
}

// open opens a new store of b for t, closed when t ends, and returns its
// location for a test that reopens it.
func (b backend) open(t *testing.T) (*Store, string) {
	t.Helper()
	loc := b.location(t)
	s, err := Open(context.Background(), loc, WithMasterKey(testMasterKey))
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine() != b.name {
		t.Fatalf("store at %s runs on %s, want %s", loc, s.Engine(), b.name)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, loc
}

// testMasterKey seals the secrets of the suite's stores (a SQLite store
// opened without one makes a key file beside its database).
var testMasterKey, _ = masterkey.Generate()

// forEachBackend runs fn as a subtest on each engine.
func forEachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

// openTest is a new SQLite store, for the tests of what only SQLite has
// (its page cap, its query plans, its older data directories).
func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	return backends[0].open(t)
}
