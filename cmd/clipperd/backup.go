package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/backup"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// backupCmd writes a consistent backup of a single box's data directory
// into a new or empty directory, online: clipperd may be serving and
// rendering meanwhile (package backup).
func backupCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir, database := storeFlags(fs)
	to := fs.String("to", "", "the backup directory: new or empty")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *to == "" {
		return fmt.Errorf("%w: backup: --to is required", errUsage)
	}
	db := store.Location(*database, *dir)
	if store.IsPostgresURL(db) {
		return fmt.Errorf("%w: backup: --database is PostgreSQL; back it up with its own tools (pg_dump, base backups) "+
			"and the media bucket with its versioning: clipperd backup covers a single box", errUsage)
	}
	report, err := backup.Backup(ctx, *dir, db, *to)
	if report != nil {
		printReport(stdout, report, "deleted after the snapshot", "remade after the snapshot (their work runs again after a restore)")
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "backed up %s into %s: the database and %d files (%d bytes), %d hard links kept\n",
		*dir, *to, report.Files, report.Bytes, report.Linked)
	return err
}

// restoreCmd puts a backup in place in a new or empty data directory, to be
// served from there.
func restoreCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the backup directory (written by clipperd backup)")
	to := fs.String("to", "", "the data directory to restore into: new or empty")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return fmt.Errorf("%w: restore: --from and --to are required", errUsage)
	}
	report, err := backup.Restore(ctx, *from, *to)
	if report != nil {
		printReport(stdout, report, "missing from the backup", "damaged in the backup (refused when asked for)")
	}
	var damaged *store.DamagedError
	if errors.As(err, &damaged) {
		return fmt.Errorf("restore: the backup's database is damaged: %s", strings.Join(damaged.Problems, "; "))
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "restored %s into %s: the database and %d files (%d bytes); serve it with clipperd serve --data %s\n",
		*from, *to, report.Files, report.Bytes, *to)
	return err
}

// printReport lists the keys a backup or restore found missing or changed.
func printReport(w io.Writer, r *backup.Report, missing, changed string) {
	for _, k := range r.Missing {
		fmt.Fprintf(w, "%s: %s\n", k, missing)
	}
	for _, k := range r.Changed {
		fmt.Fprintf(w, "%s: %s\n", k, changed)
	}
}
