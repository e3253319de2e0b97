package store

import (
	"context"
	"fmt"
)

// What other packages need to know of the engine is asked here, as what the
// store can do, never by the engine's name: a third engine answers these
// and the packages that ask stay as they are.

// SharedByProcesses reports whether several processes may use this store at
// once (PostgreSQL, shared by API and worker nodes), so limits that must
// hold across them (rate windows, failed attempts) are decided in the
// database rather than in one process's memory. A SQLite store belongs to
// one process: its datalock refuses a second.
func (s *Store) SharedByProcesses() bool { return s.dialect.shared }

// SingleConnection reports whether the database has one connection that
// every statement waits for (SQLite), so a poll of the job system delays
// every request's statements and is made rarely.
func (s *Store) SingleConnection() bool { return s.dialect.singleConnection }

// JobDriver names the package of River's driver that speaks this store's
// SQL ("riversqlite", "riverdatabasesql"), for package jobs; "" when River
// has none. River ships one driver per database it supports, so this is
// named by River's package rather than asked as a capability; the store
// does not import River for it (River's drivers bring their own clients).
func (s *Store) JobDriver() string { return s.dialect.jobDriver }

// Exclusively runs fn holding the lock named name across every process
// that shares the database, on a connection of its own, so steps that
// would race (River's migrations, which take no lock) run one process at a
// time; the others wait, then find the work done. A store of one process
// (!SharedByProcesses) runs fn at once: its datalock keeps other processes
// out, and its one connection could not be held apart.
func (s *Store) Exclusively(ctx context.Context, name string, fn func(context.Context) error) error {
	d := s.dialect
	if d.sessionLock == "" {
		return fn(ctx)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, d.sessionLock, name); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	// Unlocked whatever happened: the connection goes back to the pool, lock
	// and all, if it is not.
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), d.sessionUnlock, name) }()
	return fn(ctx)
}
