package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Failed attempts (gallery logins, API keys) per client, for the processes
// that share a PostgreSQL database (package failbound): each client's
// bucket is one time, until_ns, in the manner of GCRA: every failed
// attempt moves it one interval further from now (or from itself, when it
// is ahead), and a client whose time leads now by more than the bucket
// allows is out of attempts. One number, so spending is one conditional
// upsert, atomic on either engine.

// FailedAttemptsUntil is the time client's failed attempts are counted
// until (zero: none counted).
func (s *Store) FailedAttemptsUntil(ctx context.Context, client string) (time.Time, error) {
	var ns int64
	err := s.db.QueryRowContext(ctx, `SELECT until_ns FROM failed_attempts WHERE client = ?`, client).Scan(&ns)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read failed attempts: %w", err)
	}
	return time.Unix(0, ns), nil
}

// SpendFailedAttempt counts one failed attempt of client at now, each
// worth every: unless client's time already leads now by more than
// blockAfter (out of attempts: spending nothing, as golang.org/x/time/rate
// does), it moves one every past now or past itself, whichever is later.
func (s *Store) SpendFailedAttempt(ctx context.Context, client string, now time.Time, every, blockAfter time.Duration) error {
	at := now.UnixNano()
	_, err := s.db.ExecContext(ctx, `INSERT INTO failed_attempts(client, until_ns) VALUES (?, ?)
		ON CONFLICT(client) DO UPDATE SET until_ns = CASE
			WHEN failed_attempts.until_ns <= ? THEN excluded.until_ns
			WHEN failed_attempts.until_ns > ? THEN failed_attempts.until_ns
			ELSE failed_attempts.until_ns + ? END`,
		client, at+int64(every), at, at+int64(blockAfter), int64(every))
	if err != nil {
		return fmt.Errorf("count failed attempt: %w", err)
	}
	return nil
}

// ForgetFailedAttempts drops the clients whose attempts had all come back
// by now: as new ones, they are no row at all.
func (s *Store) ForgetFailedAttempts(ctx context.Context, now time.Time) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM failed_attempts WHERE until_ns <= ?`, now.UnixNano()); err != nil {
		return fmt.Errorf("forget failed attempts: %w", err)
	}
	return nil
}
