// Package fulltest makes a SQLite store full for tests, as a full disk
// does: SQLite answers SQLITE_FULL ("database or disk is full"), a real
// engine error, without a disk to fill.
package fulltest

import (
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// Table is the table Fill takes the store's last pages with; a test that
// frees them again deletes its rows.
const Table = "test_fill"

// Fill caps st's database at its size and takes every page it has left.
// Writes that need a new page fail from then on; updates that rewrite a
// page in place still succeed.
func Fill(tb testing.TB, st *store.Store) {
	tb.Helper()
	db := st.DB()
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS " + Table + " (b BLOB)"); err != nil {
		tb.Fatal(err)
	}
	if err := st.LimitSize(tb.Context(), false); err != nil {
		tb.Fatal(err)
	}
	for _, size := range []int{4096, 1024, 256, 64, 16} {
		for i := 0; ; i++ {
			if _, err := db.Exec("INSERT INTO "+Table+" VALUES (randomblob(?))", size); err != nil {
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
