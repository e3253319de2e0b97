// Package stores opens *store.Store values for tests on top of storetest.
// It is apart from storetest because it imports the store, and the
// store's own internal tests import storetest: one package would be an
// import cycle.
package stores

import (
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// MasterKey seals the secrets of every store this package opens, so a test
// that opens a database twice (a restart, a second process) reads them.
var MasterKey = storetest.MasterKey()

// Open opens the store at location (a data directory, a SQLite file or a
// PostgreSQL URL) with MasterKey; it is closed when tb ends.
func Open(tb testing.TB, location string) *store.Store {
	tb.Helper()
	st, err := store.Open(tb.Context(), location, store.WithMasterKey(MasterKey))
	if err != nil {
		tb.Fatalf("open the store at %s: %v", location, err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	return st
}

// ForEachEngine runs fn as a parallel subtest on each engine; open opens a
// new, empty store of that engine, closed when its test ends.
func ForEachEngine(t *testing.T, fn func(t *testing.T, open func(testing.TB) *store.Store)) {
	t.Helper()
	storetest.ForEachEngine(t, func(t *testing.T, e storetest.Engine) {
		fn(t, func(tb testing.TB) *store.Store {
			tb.Helper()
			st := Open(tb, e.Location(tb))
			if st.Engine() != e.Name {
				tb.Fatalf("a store of %s runs on %s", e.Name, st.Engine())
			}
			return st
		})
	})
}

// FillTable is the table Fill takes the store's last pages with; a test
// that frees them again deletes its rows.
const FillTable = "test_fill"

// Fill makes a SQLite store full as a full disk does: it caps st's
// database at its size and takes every page it has left, so SQLite answers
// SQLITE_FULL, a real engine error, without a disk to fill. Writes that
// need a new page fail from then on; updates that rewrite a page in place
// still succeed.
func Fill(tb testing.TB, st *store.Store) {
	tb.Helper()
	db := st.DB()
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS " + FillTable + " (b BLOB)"); err != nil {
		tb.Fatal(err)
	}
	if err := st.LimitSize(tb.Context(), false); err != nil {
		tb.Fatal(err)
	}
	for _, size := range []int{4096, 1024, 256, 64, 16} {
		for i := 0; ; i++ {
			if _, err := db.Exec("INSERT INTO "+FillTable+" VALUES (randomblob(?))", size); err != nil {
				if !store.IsFull(err) {
					tb.Fatal(err)
				}
				break
			}
			if i > 100000 {
				tb.Fatal("the capped database never filled")
			}
		}
	}
}
