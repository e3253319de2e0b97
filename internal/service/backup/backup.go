// Package backup copies a single box's state, a data directory with its
// SQLite database, while clipperd runs (Backup), and puts a copy in place
// in a new directory (Restore). A backup directory is laid out as a data
// directory is, with a manifest (backup.json) written last, so a copy cut
// short is never taken for a backup. Scale-out installations back up with
// PostgreSQL's own tools and the bucket's versioning instead.
//
// A backup never holds the master key (package masterkey) that seals the
// database's secrets, even when an older installation keeps it in the data
// directory: a stolen backup then opens nothing, and a restore is given
// the key apart.
package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/datalock"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// ManifestFile is the name of the manifest in a backup directory.
const ManifestFile = "backup.json"

// Manifest describes a backup; its presence says the backup is whole.
type Manifest struct {
	Format    int    `json:"format"`
	CreatedAt string `json:"createdAt"`
	Database  string `json:"database"` // the snapshot's file name
	Files     int    `json:"files"`    // besides the database
	Bytes     int64  `json:"bytes"`
}

// Report says what a backup or a restore copied and what it found.
type Report struct {
	Files int   // media and other files, besides the database
	Bytes int64 // their bytes
	// Linked are files that share another's bytes (a post's hard link to
	// its clip): linked again in the copy, not copied twice.
	Linked int
	// Missing are keys the database names that were not there to copy:
	// deleted after the snapshot (the janitor expired them).
	Missing []string
	// Changed are renders whose copy is not the one the database records:
	// in a backup, remade after the snapshot (a censor job in flight, which
	// runs again after a restore); in a restore, damaged in the backup.
	Changed []string
}

// Backup writes a consistent backup of the data directory dataDir (its
// SQLite database file db) into the new or empty directory to, while
// clipperd may be running: the database first, as one snapshot
// (store.Snapshot), then every media file (blob.Roots), so every file the
// snapshot names is there unless it was deleted meanwhile. Media objects
// are whole once they exist (written aside and renamed into place), so a
// file is copied as one version of it. Then the files of the data
// directory's root that must travel (Travels), then the manifest.
func Backup(ctx context.Context, dataDir, db, to string) (*Report, error) {
	if err := emptyDir(to); err != nil {
		return nil, err
	}
	snapshot := filepath.Join(to, store.DefaultFile)
	if err := store.Snapshot(ctx, db, snapshot); err != nil {
		return nil, err
	}
	report := &Report{}
	c := newCopier(report)
	copied := map[string]blob.Sum{}
	for _, root := range blob.Roots() {
		if err := c.tree(ctx, dataDir, to, strings.TrimSuffix(root, "/"), copied); err != nil {
			return report, err
		}
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return report, err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && Travels(e.Name()) {
			if _, err := c.file(ctx, filepath.Join(dataDir, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return report, err
			}
		}
	}
	if err := compare(ctx, snapshot, copied, report); err != nil {
		return report, err
	}
	m := Manifest{Format: 1, CreatedAt: time.Now().UTC().Format(time.RFC3339), Database: store.DefaultFile,
		Files: report.Files, Bytes: report.Bytes}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return report, err
	}
	return report, writeSynced(filepath.Join(to, ManifestFile), append(data, '\n'))
}

// Travels says whether a file of the data directory's root goes into a
// backup: every one but the database and its log (the snapshot stands for
// them), the damaged copies `clipperd repair` keeps aside, the lock of the
// servers running on it (datalock) and the master key file an older
// installation keeps there (a backup holding it would open every secret).
// A new kind of root file travels unless it is named here.
func Travels(name string) bool {
	switch {
	case name == store.DefaultFile, name == masterkey.DefaultFile, strings.HasPrefix(name, store.DefaultFile+"-"),
		strings.HasPrefix(name, store.DefaultFile+".damaged-"), name == ManifestFile, name == datalock.File,
		strings.HasPrefix(name, "."):
		return false
	}
	return true
}

// ErrNoMasterKey is returned by Restore when it is given no master key and
// the backup holds none.
var ErrNoMasterKey = errors.New("the backup holds no master key (backups leave it out, so a stolen one opens nothing): " +
	"give the key of the installation it came from (--master-key-file or " + masterkey.Env + ")")

// Restore copies the backup in from into the new or empty directory to,
// which then serves as a data directory: the database is opened as a
// server opens it (checked, migrated when this clipperd is newer) with the
// master key key, and every render with a recorded sum is checked against
// it. A nil key is the key file that a backup made by an older clipperd
// holds (ErrNoMasterKey when there is none); a given key leaves such a file
// out of the restored directory, as the key is kept apart. When key does
// not open the database's secrets (masterkey.ErrWrongKey) the directory is
// emptied again, so the restore can be run again with the right key.
func Restore(ctx context.Context, from, to string, key *masterkey.Key) (*Report, error) {
	data, err := os.ReadFile(filepath.Join(from, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("%s is not a whole backup (no %s, which a backup writes last): %w", from, ManifestFile, err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Format != 1 || m.Database == "" {
		return nil, fmt.Errorf("%s: %s is not a backup manifest clipperd reads (%v)", from, ManifestFile, err)
	}
	var opts []store.Option
	if key != nil {
		opts = append(opts, store.WithMasterKey(key))
	} else if _, err := os.Stat(filepath.Join(from, masterkey.DefaultFile)); err != nil {
		return nil, ErrNoMasterKey
	}
	if err := emptyDir(to); err != nil {
		return nil, err
	}
	report := &Report{}
	c := newCopier(report)
	copied := map[string]blob.Sum{}
	err = filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil || rel == ManifestFile || (key != nil && rel == masterkey.DefaultFile) {
			return err
		}
		sum, err := c.file(ctx, path, filepath.Join(to, rel))
		if rel == m.Database { // counted apart, as a backup does
			report.Files--
			report.Bytes -= sum.Size
		} else {
			copied[filepath.ToSlash(rel)] = sum
		}
		return err
	})
	if err != nil {
		return report, err
	}
	st, err := store.Open(ctx, filepath.Join(to, m.Database), opts...)
	if errors.Is(err, masterkey.ErrWrongKey) {
		return report, errors.Join(err, emptyAgain(to))
	}
	if err != nil {
		return report, err
	}
	defer st.Close()
	// The backup's runs are not running anywhere: the restored copy queues
	// them again at its first watchdog pass, not after the copied leases.
	if err := st.EndAllLeases(ctx); err != nil {
		return report, err
	}
	return report, compareWith(ctx, st, copied, report)
}

// compare checks the copied media against the snapshot at file.
func compare(ctx context.Context, file string, copied map[string]blob.Sum, report *Report) error {
	st, err := store.OpenSnapshot(ctx, file)
	if err != nil {
		return err
	}
	defer st.Close()
	return compareWith(ctx, st, copied, report)
}

// mediaRecords is what compareWith reads of the store: the keys its rows
// name and the sums of the renders.
type mediaRecords interface {
	ReferencedKeys(ctx context.Context) ([]string, error)
	MediaSums(ctx context.Context) (map[string]store.MediaSum, error)
}

// compareWith lists in report the keys st names that were not copied and
// the renders whose copy is not the one st records.
func compareWith(ctx context.Context, st mediaRecords, copied map[string]blob.Sum, report *Report) error {
	keys, err := st.ReferencedKeys(ctx)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if _, ok := copied[k]; !ok {
			report.Missing = append(report.Missing, k)
		}
	}
	sums, err := st.MediaSums(ctx)
	if err != nil {
		return err
	}
	for k, want := range sums {
		if got, ok := copied[k]; ok && got != blob.Sum(want) {
			report.Changed = append(report.Changed, k)
		}
	}
	slices.Sort(report.Missing)
	slices.Sort(report.Changed)
	return nil
}

// copier copies files into a backup or a restore, keeping hard links.
type copier struct {
	report *Report
	bySize map[int64][]copiedFile // the files copied, by size, to find a second link to one
}

type copiedFile struct {
	info os.FileInfo // of the source
	to   string
	sum  blob.Sum
}

func newCopier(r *Report) *copier { return &copier{report: r, bySize: map[int64][]copiedFile{}} }

// tree copies the files under dir/root into to/root, skipping the parts
// of objects being written (dot names); a file deleted while the tree is
// walked is skipped.
func (c *copier) tree(ctx context.Context, dir, to, root string, copied map[string]blob.Sum) error {
	err := filepath.WalkDir(filepath.Join(dir, root), func(path string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case strings.HasPrefix(d.Name(), "."):
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		sum, err := c.file(ctx, path, filepath.Join(to, rel))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		copied[filepath.ToSlash(rel)] = sum
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// file copies the file from to the new file to (owner-only: a backup
// holds keys), synced, and returns the Sum of what it copied. A file that
// is another link to one already copied becomes a link to its copy.
func (c *copier) file(ctx context.Context, from, to string) (blob.Sum, error) {
	if err := ctx.Err(); err != nil {
		return blob.Sum{}, err
	}
	in, err := os.Open(from)
	if err != nil {
		return blob.Sum{}, err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return blob.Sum{}, err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return blob.Sum{}, err
	}
	for _, f := range c.bySize[info.Size()] {
		if os.SameFile(info, f.info) {
			if err := os.Link(f.to, to); err != nil {
				return blob.Sum{}, err
			}
			c.report.Linked++
			return f.sum, nil
		}
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return blob.Sum{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if err == nil {
		err = out.Sync()
	}
	if err = errors.Join(err, out.Close()); err != nil {
		return blob.Sum{}, fmt.Errorf("copy %s: %w", from, err)
	}
	c.report.Files++
	c.report.Bytes += n
	sum := blob.Sum{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	c.bySize[info.Size()] = append(c.bySize[info.Size()], copiedFile{info: info, to: to, sum: sum})
	return sum, nil
}

// emptyDir makes dir (owner-only) or accepts it empty; anything in it is
// refused, so a backup or restore never mixes with other files.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o700)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty (it holds %s): give a new or empty directory", dir, entries[0].Name())
	}
	return nil
}

// emptyAgain removes what a restore put in the directory dir, which was new or
// empty before it.
func emptyAgain(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
