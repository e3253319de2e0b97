package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/datalock"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// repair recovers a damaged SQLite database of a stopped server in place
// (store.Repair): the damaged files are kept aside, every readable row goes
// into a new database, and what could not be read is reported. On
// PostgreSQL damage is PostgreSQL's to repair (its own tools, a backup).
func repair(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("repair", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := storeFlags(fs)
	dir, database := state.dir, state.database
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	file := store.Location(*database, *dir)
	if store.Locate(file).Shared() {
		return fmt.Errorf("%w: repair: --database is PostgreSQL; repair works on a SQLite file (restore PostgreSQL with its own tools)", errUsage)
	}
	// A server writing the file would be cut off from it: refuse while one runs.
	lock, err := datalock.Exclusive(*dir)
	if errors.Is(err, datalock.ErrLocked) {
		return fmt.Errorf("repair: stop clipperd first: %w", err)
	}
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	defer func() { _ = lock.Release() }()
	report, err := store.Repair(ctx, file)
	if report != nil {
		fmt.Fprintf(stdout, "kept the damaged database as %s\n", report.Damaged)
		for _, t := range report.Tables {
			line := fmt.Sprintf("%-24s %8d rows recovered", t.Name, t.Rows)
			if t.Skipped > 0 || t.Refused > 0 {
				line += fmt.Sprintf(", %d damaged spans skipped, %d damaged rows refused (%s)", t.Skipped, t.Refused, strings.Join(t.Problems, "; "))
			}
			fmt.Fprintln(stdout, line)
		}
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "recovered into %s: check the rows above, then start clipperd (rows of damaged spans are lost; a backup has them)\n", report.File)
	return err
}
