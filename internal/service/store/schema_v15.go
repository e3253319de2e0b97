package store

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"strings"
)

// migrateToRelativeMedia rewrites what earlier releases stored as absolute
// paths into the data directory, and clip addresses under the public URL of
// the time, into names that hold wherever the directory is and whatever its
// address: an upload's bytes become its blob key "uploads/<file>", a
// project's source "media/<projectId>/<file>", a post published to a
// directory "published/<postAccountId>/<postId>", and a clip's addresses
// "/media/<projectId>/<file>". The keys are found from the layout (the
// last elements of the path), not from where the directory was, so a
// directory already moved before this release opens keeping everything too.
func migrateToRelativeMedia(ctx context.Context, tx *sql.Tx) error {
	steps := []struct {
		what, query, update string
		rewrite             func(id, extra, old string) string
	}{
		{"uploads", `SELECT id, '', path FROM uploads`, `UPDATE uploads SET path = ? WHERE id = ?`,
			func(_, _, old string) string { return relativeKey(old, "uploads/"+path.Base(old)) }},
		{"project sources", `SELECT id, '', source_path FROM projects WHERE source_path != ''`, `UPDATE projects SET source_path = ? WHERE id = ?`,
			func(id, _, old string) string { return relativeKey(old, "media/"+id+"/"+path.Base(old)) }},
		{"posts", `SELECT id, post_account_id, location FROM posts WHERE publish_to = 'dir' AND location != ''`, `UPDATE posts SET location = ? WHERE id = ?`,
			func(id, account, old string) string { return relativeKey(old, "published/"+account+"/"+id) }},
		{"clip previews", `SELECT id, '', uri_for_preview FROM clips WHERE uri_for_preview != ''`, `UPDATE clips SET uri_for_preview = ? WHERE id = ?`,
			func(_, _, old string) string { return relativeAddress(old) }},
		{"clip exports", `SELECT id, '', uri_for_export FROM clips WHERE uri_for_export != ''`, `UPDATE clips SET uri_for_export = ? WHERE id = ?`,
			func(_, _, old string) string { return relativeAddress(old) }},
	}
	for _, st := range steps {
		type change struct{ id, value string }
		changes, err := queryAll(ctx, tx, func(row scanner) (change, error) {
			var id, extra, old string
			if err := row.Scan(&id, &extra, &old); err != nil {
				return change{}, err
			}
			return change{id, st.rewrite(id, extra, old)}, nil
		}, st.query)
		if err != nil {
			return fmt.Errorf("read %s: %w", st.what, err)
		}
		for _, c := range changes {
			if _, err := tx.ExecContext(ctx, st.update, c.value, c.id); err != nil {
				return fmt.Errorf("rewrite %s %s: %w", st.what, c.id, err)
			}
		}
	}
	return nil
}

// relativeKey is key for an absolute path, and old for anything else
// (already a key).
func relativeKey(old, key string) string {
	if !strings.HasPrefix(old, "/") {
		return old
	}
	return key
}

// relativeAddress is the "/media/..." end of a whole media address, and
// old for any other.
func relativeAddress(old string) string {
	i := strings.LastIndex(old, "/media/")
	if i < 0 || !strings.Contains(old[:i], "://") {
		return old
	}
	return old[i:]
}
