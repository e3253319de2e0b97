// Package storetest is what the tests of the store and of its users share:
// a real PostgreSQL database of their own (so the store's suite, the job
// system's and the server's run on PostgreSQL as well as SQLite), the
// engines to run a test on, a master key, and Eventually, the one wait for
// a condition. No test double stands in for PostgreSQL: a machine without
// it skips these tests, and CI, where scripts/ensure-tools.sh postgres
// starts it, fails them instead. It does not import the store, so the
// store's own internal tests use it; package stores opens stores on it.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// EnvPostgres names the variable holding the URL of a PostgreSQL database
// whose role may create databases; DefaultPostgres is the one
// `scripts/ensure-tools.sh postgres` sets up.
const (
	EnvPostgres     = "CLIPPERD_TEST_POSTGRES"
	DefaultPostgres = "postgres://clipper:clipper@127.0.0.1:5432/clipper_test?sslmode=disable"
)

// PostgresURL creates a fresh, empty database for tb and returns its URL;
// the database is dropped when tb ends. Without a reachable server tb is
// skipped, or failed under CI.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		base = DefaultPostgres
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("%s: %v", EnvPostgres, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		_ = admin.Close()
		msg := fmt.Sprintf("PostgreSQL at %s is unreachable (run scripts/ensure-tools.sh postgres, or set %s): %v", redact(base), EnvPostgres, err)
		if toolexectest.InCI() {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "clipper_t_" + hex.EncodeToString(b[:])
	// template0: nothing left in template1 by hand leaks in.
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name+` TEMPLATE template0 ENCODING 'UTF8'`); err != nil {
		_ = admin.Close()
		tb.Fatalf("create test database: %v", err)
	}
	tb.Cleanup(func() {
		defer admin.Close()
		if err := dropDatabase(admin, name); err != nil {
			tb.Errorf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("%s: %v", EnvPostgres, err)
	}
	u.Path = "/" + name
	return u.String()
}

// redact is u without its password.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "the configured URL"
	}
	return p.Redacted()
}

// dropDatabase drops name once the connections of the closed store are
// gone: the server ends them a moment after the client closes them.
func dropDatabase(admin *sql.DB, name string) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		_, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name)
		cancel()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
