package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/backup"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// backupCmd writes a consistent backup of a single box's data directory
// into a new or empty directory, online: clipperd may be serving and
// rendering meanwhile (package backup).
func backupCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := storeFlags(fs)
	to := fs.String("to", "", "the backup directory: new or empty")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *to == "" {
		return fmt.Errorf("%w: backup: --to is required", errUsage)
	}
	dir := state.dir
	db := store.Location(*state.database, *dir)
	if store.Locate(db).Shared() {
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
	if _, err := fmt.Fprintf(stdout, "backed up %s into %s: the database and %d files (%d bytes), %d hard links kept\n",
		*dir, *to, report.Files, report.Bytes, report.Linked); err != nil {
		return err
	}
	return printKeyApart(stdout, *dir, *state.masterKeyFile)
}

// printKeyApart says where the master key that a backup of dir leaves out
// is, and that it must be kept apart: the backup opens only with it.
func printKeyApart(w io.Writer, dir, keyFile string) error {
	env := os.Getenv(masterkey.Env)
	from, err := masterkey.Locate(env, keyFile, dir)
	var where, restore string
	switch {
	case err != nil:
		where, restore = "the key the server is given", "--master-key-file or "+masterkey.Env
	case from == masterkey.Env:
		where, restore = "the value of "+masterkey.Env, masterkey.Env+" set to it"
	default:
		where, restore = from, "--master-key-file "+from
	}
	_, err = fmt.Fprintf(w, "the master key is not in the backup, so a stolen backup opens nothing: it is %s; "+
		"keep a copy of it apart from the backup, a restore needs it (clipperd restore with %s)\n", where, restore)
	if err == nil && env == "" && keyFile == "" && masterkey.InDataDir(dir) {
		_, err = fmt.Fprintf(w, "the key file is inside the data directory, so a plain copy of the directory opens its secrets: %s\n",
			masterkey.MoveHint(dir))
	}
	return err
}

// restoreCmd puts a backup in place in a new or empty data directory, to be
// served from there.
func restoreCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the backup directory (written by clipperd backup)")
	to := fs.String("to", "", "the data directory to restore into: new or empty")
	keyFile := fs.String("master-key-file", "", masterKeyFileUsage+
		"; unset (and no "+masterkey.Env+"): the key file a backup of an older clipperd holds, else the default key file of this machine")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return fmt.Errorf("%w: restore: --from and --to are required", errUsage)
	}
	key, keyFrom, err := restoreKey(*from, *keyFile)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	report, err := backup.Restore(ctx, *from, *to, key)
	if report != nil {
		printReport(stdout, report, "missing from the backup", "damaged in the backup (refused when asked for)")
	}
	var damaged *store.DamagedError
	if errors.As(err, &damaged) {
		return fmt.Errorf("restore: the backup's database is damaged: %s", strings.Join(damaged.Problems, "; "))
	}
	if errors.Is(err, masterkey.ErrWrongKey) {
		return fmt.Errorf("restore: the master key from %s does not open the backup's secrets (%w): "+
			"give the key of the installation it came from with --master-key-file or %s; %s is left empty for another try",
			keyFrom, err, masterkey.Env, *to)
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	serve := "clipperd serve --data " + *to
	switch {
	case keyFrom == masterkey.Env:
		serve = masterkey.Env + "=... " + serve
	case *keyFile != "":
		serve += " --master-key-file " + *keyFile
	}
	_, err = fmt.Fprintf(stdout, "restored %s into %s: the database and %d files (%d bytes), its secrets opened with the master key from %s; serve it with %s\n",
		*from, *to, report.Files, report.Bytes, keyFrom, serve)
	return err
}

// restoreKey finds the master key a restore opens the backup in from with:
// CLIPPERD_MASTER_KEY or keyFile when given; else the key file a backup
// made by an older clipperd holds (nil: package backup uses it); else the
// default key file, when this machine has one (a backup restored where it
// was made). A default key file is never made here: a new key would open
// nothing the backup holds.
func restoreKey(from, keyFile string) (*masterkey.Key, string, error) {
	if env := os.Getenv(masterkey.Env); env != "" || keyFile != "" {
		return masterkey.Resolve(env, keyFile, "")
	}
	if masterkey.InDataDir(from) {
		return nil, filepath.Join(from, masterkey.DefaultFile) + " (an older clipperd's backup; move it apart once restored)", nil
	}
	path, err := masterkey.DefaultPath()
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, "", fmt.Errorf("%w (and there is no %s on this machine)", backup.ErrNoMasterKey, path)
	}
	return masterkey.Resolve("", path, "")
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
