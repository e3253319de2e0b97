package storetest

import (
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
)

// Engine is a database engine the store runs on, as a test sees it: its
// name (the store's Engine()) and where a fresh, empty database of it
// lives. The package does not import the store, so the store's own
// internal tests can use it; stores/ opens *store.Store values on top.
type Engine struct {
	Name     string
	Location func(testing.TB) string
}

// Engines are every engine the store runs on: a SQLite data directory of
// the test's own and a PostgreSQL database of the test's own.
var Engines = []Engine{
	{"sqlite", func(tb testing.TB) string { return tb.TempDir() }},
	{"postgres", PostgresURL},
}

// ForEachEngine runs fn as a parallel subtest on each engine: each subtest
// owns its database, so they share nothing.
func ForEachEngine(t *testing.T, fn func(t *testing.T, e Engine)) {
	t.Helper()
	for _, e := range Engines {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, e)
		})
	}
}

// MasterKey is a new master key for a test's stores; stores that must open
// each other's secrets (two handles of one database) share one. It takes
// no test, so a package can hold one in a variable.
func MasterKey() *masterkey.Key {
	key, _ := masterkey.Generate() // its text form is for key files only
	return key
}
