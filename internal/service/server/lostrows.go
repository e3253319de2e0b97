package server

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
)

// rowChecker tells which of ids a table does not have (lostRows).
type rowChecker interface {
	Unknown(ctx context.Context, table string, ids []string) ([]string, error)
}

// lostRows logs an error at start when media of the directory store name
// projects or posts the database does not have. Their rows are written
// before their files, so such files mean the database lost commits: a
// write-ahead log cut exactly after a commit reads as a shorter log, which
// the store's check at open cannot tell (store.DamagedError covers every
// other cut). It costs a directory listing of media/ and published/ and
// one query per 500 names. Bucket media are not listed.
func lostRows(ctx context.Context, st rowChecker, media blob.Store, logger *slog.Logger) {
	d, ok := media.(*blob.Dir)
	if !ok {
		return
	}
	projects := subdirs(filepath.Join(d.Root(), "media"))
	var posts []string
	for _, account := range subdirs(filepath.Join(d.Root(), "published")) {
		posts = append(posts, subdirs(filepath.Join(d.Root(), "published", account))...)
	}
	for _, c := range []struct {
		table string
		ids   []string
	}{{"projects", projects}, {"posts", posts}} {
		unknown, err := st.Unknown(ctx, c.table, c.ids)
		if err != nil {
			logger.Warn("compare the media with the database", "err", err)
			return
		}
		if len(unknown) > 0 {
			logger.Error("the database has lost rows: media name "+c.table+" it does not have (was the write-ahead log cut, "+
				"or the database replaced by an older copy?); compare with the last backup (clipperd restore into another directory)",
				"table", c.table, "unknown", len(unknown), "of", len(c.ids), "first", unknown[:min(5, len(unknown))])
		}
	}
}

// subdirs are the names of the directories in dir (none when it is absent).
func subdirs(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && e.Name()[0] != '.' {
			names = append(names, e.Name())
		}
	}
	return names
}
