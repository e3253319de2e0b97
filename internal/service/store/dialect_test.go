package store

import (
	"os"
	"testing"
)

func TestRebind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c IN (?, ?)`, `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`},
		{`SELECT ?1 + ?1, ?2`, `SELECT $1 + $1, $2`},
		{`SELECT ?2, ?`, `SELECT $2, $3`}, // SQLite: a bare ? follows the largest number so far
		{`SELECT '?' || "a?b" || ? -- what?`, `SELECT '?' || "a?b" || $1 -- what?`},
		{"SELECT ? -- a ?\n, ?", "SELECT $1 -- a ?\n, $2"},
		{`SELECT $1 WHERE x ? 'key'`, `SELECT $1 WHERE x ? 'key'`}, // already PostgreSQL's (the job system's)
	} {
		if got := rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLocateTellsSharedDatabasesFromFiles(t *testing.T) {
	t.Parallel()
	for loc, shared := range map[string]bool{
		"postgres://u:p@h/db": true, "postgresql://h/db?sslmode=disable": true,
		"/var/lib/clipperd/clipperd.db": false, "./data": false, "": false,
	} {
		p := Locate(loc)
		if p.Shared() != shared || p.InDataDir() == shared {
			t.Errorf("Locate(%q): Shared %v, InDataDir %v; want Shared %v", loc, p.Shared(), p.InDataDir(), shared)
		}
	}
}

func TestOpenTellsFilesFromDataDirectories(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ location, file string }{
		{dir + "/new-data", dir + "/new-data/" + DefaultFile}, // a data directory, as callers have always passed
		{dir + "/state.db", dir + "/state.db"},
		{dir + "/deep/er/x.sqlite3", dir + "/deep/er/x.sqlite3"},
		{dir, dir + "/" + DefaultFile},
	} {
		s, err := Open(t.Context(), tc.location)
		if err != nil {
			t.Fatalf("Open(%q): %v", tc.location, err)
		}
		_ = s.Close()
		if fi, err := os.Stat(tc.file); err != nil || fi.IsDir() {
			t.Errorf("Open(%q) made no database file %s: %v", tc.location, tc.file, err)
		}
	}
}
