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

// SaveRateWindow replaces the saved times of key's allowed requests.
func (s *Store) SaveRateWindow(ctx context.Context, key string, times []time.Time) error {
	fields := make([]string, len(times))
	for i, t := range times {
		fields[i] = strconv.FormatInt(t.UnixNano(), 10)
	}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO rate_windows(api_key, times) VALUES (?, ?)
		 ON CONFLICT(api_key) DO UPDATE SET times = excluded.times`, key, strings.Join(fields, " "))
	if err != nil {
		return fmt.Errorf("save rate window: %w", err)
	}
	return nil
}
