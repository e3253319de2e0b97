package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/dependency/dependencytest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// TestTransactionRidesOutARestart: PostgreSQL restarts while a transaction
// runs (the transcript of a project being saved). The transaction fails
// with the session, its retry waits while connections are refused (the
// database down meanwhile), and once the server is back it runs again from
// the start and commits, once; a read made while the server is away waits
// for it too.
func TestTransactionRidesOutARestart(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cluster := storetest.StartCluster(t)
	clock := dependencytest.NewClock()
	health := dependency.NewHealth(nil)
	health.Watch(dependency.Database, func(context.Context) error { return nil })
	s, err := Open(ctx, cluster.URL, WithMasterKey(testMasterKey), WithRetry(clock.Retry(dependency.Database, time.Minute, health)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	words := []TranscriptWord{{Word: "blips", StartMs: 0, EndMs: 400, Confidence: 1}, {Word: "ridden", StartMs: 400, EndMs: 900, Confidence: 1}}

	inTx, restarted := make(chan struct{}), make(chan struct{})
	runs := 0
	done := make(chan error, 1)
	go func() {
		done <- s.tx(ctx, func(tx *sql.Tx) error {
			runs++
			if _, err := tx.ExecContext(ctx, `DELETE FROM transcript_words WHERE project_id = ?`, "prj_1"); err != nil {
				return err
			}
			if runs == 1 {
				close(inTx)
				<-restarted
			}
			for i, w := range words {
				if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_words(project_id, seq, word, start_ms, end_ms, confidence) VALUES (?, ?, ?, ?, ?, ?)`,
					"prj_1", i, w.Word, w.StartMs, w.EndMs, w.Confidence); err != nil {
					return fmt.Errorf("save transcript word %d: %w", i, err)
				}
			}
			return nil
		})
	}()
	<-inTx
	cluster.Stop(t) // the session ends (57P01), and new ones are refused
	close(restarted)
	clock.Await(t) // the transaction failed; its next connection was refused
	if health.Up(dependency.Database) || health.Ready() == nil {
		t.Error("the database is up while it is stopped")
	}
	clock.End(t)
	clock.Await(t) // refused again
	cluster.Start(t)
	clock.End(t)
	if err := <-done; err != nil {
		t.Fatalf("the transaction across the restart: %v", err)
	}
	if runs != 2 {
		t.Errorf("the transaction ran %d times, want 2 (cut by the restart, then whole)", runs)
	}
	got, err := s.Transcript(ctx, "prj_1")
	if err != nil || !slices.Equal(got, words) {
		t.Errorf("the transcript saved: %v, %v; want %v", got, err, words)
	}
	if !health.Up(dependency.Database) {
		t.Error("the database is not up again")
	}

	// A read while the server is away waits in the connector.
	cluster.Stop(t)
	read := make(chan error, 1)
	go func() {
		_, err := s.Transcript(ctx, "prj_1")
		read <- err
	}()
	clock.Await(t)
	cluster.Start(t)
	clock.End(t)
	if err := <-read; err != nil {
		t.Errorf("a read across a restart: %v", err)
	}
}

// TestTransientDB: a database away (refused, cut, shutting down, starting
// up, a connection exception) is transient; an answer (a wrong password, a
// constraint) and a commit whose outcome is unknown are final.
func TestTransientDB(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{io.ErrUnexpectedEOF, true},
		{&pgconn.PgError{Code: "57P01"}, true}, // admin_shutdown
		{&pgconn.PgError{Code: "57P03"}, true}, // cannot_connect_now
		{&pgconn.PgError{Code: "08006"}, true}, // connection_failure
		{&pgconn.PgError{Code: "28P01"}, false},
		{&pgconn.PgError{Code: "23505"}, false},
		{&commitUnknownError{io.ErrUnexpectedEOF}, false},
		{sql.ErrNoRows, false},
		{context.Canceled, false},
	} {
		if got := transientDB(c.err); got != c.want {
			t.Errorf("transientDB(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
