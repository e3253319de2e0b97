package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"
)

// Snapshot writes a consistent copy of the SQLite database file to the new
// file to, while servers go on using it: VACUUM INTO reads the database in
// one read transaction (writers are not held up: the log takes their
// commits meanwhile) and writes a compact database without a log. The
// copy passes quick_check or Snapshot fails. It opens file as it is,
// without migrating it (a newer binary must not change the schema under a
// running older server).
func Snapshot(ctx context.Context, file, to string) error {
	if err := requireSQLiteFile(file); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		return fmt.Errorf("snapshot the database: %w", err)
	}
	return quickCheckFile(ctx, to)
}

// requireSQLiteFile refuses a database file that does not exist: sql.Open
// would make an empty one.
func requireSQLiteFile(file string) error {
	fi, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	if fi.IsDir() {
		return fmt.Errorf("database %s is a directory, not a SQLite file", file)
	}
	return nil
}

// OpenSnapshot opens the SQLite database file (a snapshot) to read it as
// it is: not checked, not migrated, nothing written.
func OpenSnapshot(ctx context.Context, file string) (*Store, error) {
	if err := requireSQLiteFile(file); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	return &Store{db: db, dialect: &sqliteDialect, now: time.Now}, nil
}

// ReferencedKeys are the blob keys of media the database names: the
// complete uploads' bytes, the projects' sources, the clips' renders, and
// the post.json of posts published to a directory. A backup checks each
// is in it.
func (s *Store) ReferencedKeys(ctx context.Context) ([]string, error) {
	var keys []string
	for _, q := range []string{
		`SELECT path FROM uploads WHERE complete = 1 AND path != ''`,
		`SELECT source_path FROM projects WHERE source_path != ''`,
		`SELECT uri_for_export FROM clips WHERE uri_for_export != ''`,
		`SELECT uri_for_preview FROM clips WHERE uri_for_preview != ''`,
		`SELECT location FROM posts WHERE publish_to = 'dir' AND location != '' AND status = 'published'`,
		`SELECT media_key FROM broll`,
	} {
		got, err := queryAll(ctx, s.db, func(row scanner) (string, error) {
			var v string
			return v, row.Scan(&v)
		}, q)
		if err != nil {
			return nil, fmt.Errorf("referenced media: %w", err)
		}
		for _, v := range got {
			switch {
			case strings.HasPrefix(v, "published/"):
				v += "/post.json"
			case strings.Contains(v, "/media/"): // a clip's address, "/media/<project>/<file>"
				v = v[strings.LastIndex(v, "/media/")+1:]
			}
			keys = append(keys, v)
		}
	}
	return keys, nil
}

// MediaSums are every recorded sum, by key.
func (s *Store) MediaSums(ctx context.Context) (map[string]MediaSum, error) {
	type row struct {
		key string
		sum MediaSum
	}
	rows, err := queryAll(ctx, s.db, func(sc scanner) (row, error) {
		var r row
		return r, sc.Scan(&r.key, &r.sum.Size, &r.sum.SHA256)
	}, `SELECT key, size, sha256 FROM media_sums`)
	if err != nil {
		return nil, fmt.Errorf("media checksums: %w", err)
	}
	sums := make(map[string]MediaSum, len(rows))
	for _, r := range rows {
		sums[r.key] = r.sum
	}
	return sums, nil
}

// Unknown are the ids among ids that no row of table has: projects whose
// media directory exists, posts whose publication does. Those rows were
// written before their files, so files without rows say the database lost
// writes (a write-ahead log cut at a commit, which SQLite cannot tell).
func (s *Store) Unknown(ctx context.Context, table string, ids []string) ([]string, error) {
	if table != "projects" && table != "posts" {
		return nil, fmt.Errorf("unknown ids: no table %q", table)
	}
	var unknown []string
	const batch = 500
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		known, err := queryAll(ctx, s.db, func(row scanner) (string, error) {
			var id string
			return id, row.Scan(&id)
		}, `SELECT id FROM `+table+` WHERE id IN (`+placeholders(len(part))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("unknown %s: %w", table, err)
		}
		seen := make(map[string]bool, len(known))
		for _, id := range known {
			seen[id] = true
		}
		for _, id := range part {
			if !seen[id] {
				unknown = append(unknown, id)
			}
		}
	}
	return unknown, nil
}
