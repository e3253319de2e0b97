package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RateWindow returns the times of key's allowed requests saved by
// SaveRateWindow, oldest first; none when nothing was saved.
func (s *Store) RateWindow(ctx context.Context, key string) ([]time.Time, error) {
	var raw string
	err := s.db.QueryRowContext(ctx, `SELECT times FROM rate_windows WHERE api_key = ?`, key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read rate window: %w", err)
	}
	return parseRateTimes(raw)
}

// SaveRateWindow replaces the saved times of key's allowed requests.
func (s *Store) SaveRateWindow(ctx context.Context, key string, times []time.Time) error {
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO rate_windows(api_key, times) VALUES (?, ?)
		 ON CONFLICT(api_key) DO UPDATE SET times = excluded.times`, key, formatRateTimes(times))
	if err != nil {
		return fmt.Errorf("save rate window: %w", err)
	}
	return nil
}

// errRateWindowRace rolls back a first take of a key whose row another
// transaction inserted meanwhile; the take runs again on that row.
var errRateWindowRace = errors.New("rate window inserted concurrently")

// TakeRateWindow runs take on key's saved times (oldest first, none for a
// new key) and, when take asks to write, saves the times it returns, all
// in one transaction holding the key's row: on PostgreSQL concurrent takes
// of one key, from any process, run one after the other (SELECT ... FOR
// UPDATE), so a limit decided by take holds across every API node. A key
// seen for the first time has no row to lock; the first insert wins and a
// loser runs take again on the winner's row. take may be called twice and
// must decide from its arguments alone.
func (s *Store) TakeRateWindow(ctx context.Context, key string, take func(times []time.Time) (next []time.Time, write bool)) error {
	for {
		err := s.tx(ctx, func(tx *sql.Tx) error {
			if relaxed := s.dialect.relaxedCommit; relaxed != "" {
				// A window lost to a crash of the server gives at most a
				// minute's requests again; not worth waiting for the disk
				// on every request. Others see the commit at once all the same.
				if _, err := tx.ExecContext(ctx, relaxed); err != nil {
					return err
				}
			}
			var raw string
			err := tx.QueryRowContext(ctx, `SELECT times FROM rate_windows WHERE api_key = ?`+s.forUpdate(), key).Scan(&raw)
			found := err == nil
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			times, err := parseRateTimes(raw)
			if err != nil {
				return err
			}
			next, write := take(times)
			if !write {
				return nil
			}
			if found {
				_, err = tx.ExecContext(ctx, `UPDATE rate_windows SET times = ? WHERE api_key = ?`, formatRateTimes(next), key)
				return err
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO rate_windows(api_key, times) VALUES (?, ?) ON CONFLICT(api_key) DO NOTHING`,
				key, formatRateTimes(next))
			if err != nil {
				return err
			}
			return oneRow(res, errRateWindowRace)
		})
		if errors.Is(err, errRateWindowRace) {
			continue // the row exists now: this time the SELECT waits for it
		}
		if err != nil {
			return fmt.Errorf("take rate window: %w", err)
		}
		return nil
	}
}

// parseRateTimes reads a saved window: Unix nanoseconds, space-separated.
func parseRateTimes(raw string) ([]time.Time, error) {
	var out []time.Time
	for _, f := range strings.Fields(raw) {
		ns, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("read rate window: bad time %q", f)
		}
		out = append(out, time.Unix(0, ns))
	}
	return out, nil
}

// formatRateTimes writes a window as parseRateTimes reads it.
func formatRateTimes(times []time.Time) string {
	fields := make([]string, len(times))
	for i, t := range times {
		fields[i] = strconv.FormatInt(t.UnixNano(), 10)
	}
	return strings.Join(fields, " ")
}
