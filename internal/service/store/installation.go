package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Installation is the identity of one clipperd installation as its
// database records it (the table installation, one row). Its media carry
// a marker object with the same ID (package install), so a process given
// this database and someone else's media, or a mistyped prefix, is refused
// at its start.
type Installation struct {
	ID string
	// Media names where the media were when the marker was last found or
	// written (a directory or an s3:// address without credentials), for
	// messages.
	Media string
	// Marked is whether the marker object was written; a process that
	// stopped between recording the ID and writing the marker leaves it
	// false, and the next start writes the marker.
	Marked    bool
	CreatedAt time.Time
}

// ErrNoInstallation is Installation's answer for a database that records
// none yet: a new one, or one an older release made.
var ErrNoInstallation = errors.New("the database records no installation")

// Installation reads the installation the database records, or
// ErrNoInstallation.
func (s *Store) Installation(ctx context.Context) (Installation, error) {
	var (
		in      Installation
		marked  int64
		created string
	)
	err := s.db.QueryRowContext(ctx, `SELECT id, media, marked, created_at FROM installation WHERE one = 1`).
		Scan(&in.ID, &in.Media, &marked, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Installation{}, ErrNoInstallation
	}
	if err != nil {
		return Installation{}, fmt.Errorf("read the installation: %w", err)
	}
	in.Marked, in.CreatedAt = marked != 0, parseTimestamp(created)
	return in, nil
}

// ClaimInstallation records in (unmarked) unless the database records an
// installation already, and returns the one it records: of two processes
// starting at once on a new database, the first insert wins and both read
// it back.
func (s *Store) ClaimInstallation(ctx context.Context, id, media string) (Installation, error) {
	if _, err := s.db.ExecContext(ctx,
		`INSERT INTO installation(one, id, media, marked, created_at) VALUES (1, ?, ?, 0, ?) ON CONFLICT(one) DO NOTHING`,
		id, media, Timestamp(s.Now())); err != nil {
		return Installation{}, fmt.Errorf("record the installation: %w", err)
	}
	return s.Installation(ctx)
}

// MarkInstallation records that the marker of installation id is in the
// media named media.
func (s *Store) MarkInstallation(ctx context.Context, id, media string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE installation SET marked = 1, media = ? WHERE one = 1 AND id = ?`, media, id)
	if err != nil {
		return fmt.Errorf("record the installation's marker: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("record the installation's marker: the database no longer records installation %s", id)
	}
	return nil
}

// userTables hold what users made: a database with a row in one of them
// is an installation in use, not a new one.
var userTables = []string{"api_keys", "projects", "uploads", "social_accounts", "brand_templates", "broll", "posts"}

// HasUserData reports whether the database holds anything users made (keys,
// projects, uploads, accounts, templates, b-roll, posts): an installation
// of an older release rather than a new database.
func (s *Store) HasUserData(ctx context.Context) (bool, error) {
	for _, t := range userTables {
		var one int
		err := s.db.QueryRowContext(ctx, `SELECT 1 FROM `+quoteName(t)+` LIMIT 1`).Scan(&one)
		switch {
		case err == nil:
			return true, nil
		case !errors.Is(err, sql.ErrNoRows):
			return false, fmt.Errorf("look for rows of %s: %w", t, err)
		}
	}
	return false, nil
}

// SchemaVersion is the version of the schema the database is at (0 for a
// database without one yet), and the version this release brings it to.
func (s *Store) SchemaVersion(ctx context.Context) (have, want int, err error) {
	if ok, err := s.hasTable(ctx, "schema_migrations"); err != nil || !ok {
		return 0, len(migrations), err
	}
	have, err = schemaVersion(ctx, s.db)
	return have, len(migrations), err
}

// CheckMasterKey tries the store's master key on the sealed media key:
// sealed is false when there is none yet (a new database), err says the
// key does not open it.
func (s *Store) CheckMasterKey(ctx context.Context) (sealed bool, err error) {
	if ok, err := s.hasTable(ctx, "media_keys"); err != nil || !ok {
		return false, err
	}
	if _, err := s.sealedMediaKey(ctx); errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return true, s.checkMasterKey(ctx)
}

func (s *Store) hasTable(ctx context.Context, name string) (bool, error) {
	tables, err := s.dialect.tableNames(ctx, s.db)
	if err != nil {
		return false, fmt.Errorf("list the tables: %w", err)
	}
	return slices.Contains(tables, name), nil
}
