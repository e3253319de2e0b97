package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/s3blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/migrate"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

const migrateUsage = `usage: clipperd migrate --from DATA --to-database postgres://... --to-media s3://BUCKET/PREFIX?endpoint=...|DIR

Copies a single-box installation (the SQLite file DATA/clipperd.db and the
media of DATA) into a scale-out one: every row into the PostgreSQL database
(empty: its schema is applied first), every file of media/, uploads/ and
published/ into the bucket or directory, under the same keys. Stop clipperd
first: migrate refuses a data directory a clipperd still runs on, and no
clipperd starts on it while migrate runs. Run again after an interruption:
files already copied are skipped, and the rows are copied in one transaction.
Then start clipperd serve --database URL --media MEDIA; it resumes the
projects in flight and gives unfinished deliveries, posts, copy and censor
jobs their jobs again. Credentials of a bucket come from AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.

Flags:
`

// migrateCmd is `clipperd migrate`: see migrateUsage.
func migrateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), migrateUsage)
		fs.PrintDefaults()
	}
	from := fs.String("from", "", "the single box's data directory (required)")
	fromDatabase := fs.String("from-database", "", "the single box's SQLite file, when it ran with --database FILE (default DATA/clipperd.db)")
	fromMedia := fs.String("from-media", "", "the single box's media, when it ran with --media DIR or s3://... (default DATA)")
	toDatabase := fs.String("to-database", "", "the scale-out database: a postgres:// URL of an empty database (required)")
	toMedia := fs.String("to-media", "", "where the media go: "+s3blob.URLForm+" or a directory (required)")
	quiet := fs.Bool("quiet", false, "print only the summary, not each file")
	masterKeyFile := fs.String("master-key-file", "", "the single box's master key file, when it ran with --master-key-file (default: DATA/"+masterkey.DefaultFile+
		" of an older box, else "+masterkey.DefaultDir+"/"+masterkey.DefaultFile+" in the user's configuration directory; "+masterkey.Env+" wins over it)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for name, v := range map[string]string{"from": *from, "to-database": *toDatabase, "to-media": *toMedia} {
		if v == "" {
			return fmt.Errorf("%w: migrate: --%s is required (migrate -h)", errUsage, name)
		}
	}
	if !store.Locate(*toDatabase).Shared() {
		return fmt.Errorf("%w: migrate: --to-database must be a postgres:// URL, not %q", errUsage, *toDatabase)
	}
	for name, v := range map[string]string{"to-media": *toMedia, "from-media": *fromMedia} {
		if err := server.CheckMedia(v); err != nil {
			return fmt.Errorf("%w: migrate: --%s %v", errUsage, name, err)
		}
	}
	if err := notTheSource(*toMedia, *from, *fromMedia); err != nil {
		return err
	}

	master, masterFrom, err := masterkey.Resolve(os.Getenv(masterkey.Env), *masterKeyFile, *from)
	if err != nil {
		return err
	}
	cfg := migrate.Config{From: *from, FromDatabase: *fromDatabase, ToDatabase: *toDatabase, MasterKey: master}
	if *fromMedia != "" {
		if cfg.FromMedia, err = server.OpenMedia(ctx, *fromMedia, nil); err != nil {
			return fmt.Errorf("--from-media: %w", err)
		}
	}
	if cfg.ToMedia, err = server.OpenMedia(ctx, *toMedia, nil); err != nil {
		return fmt.Errorf("--to-media: %w", err)
	}
	if !*quiet {
		cfg.Progress = func(o blob.Info, r blob.CopyReport) {
			fmt.Fprintf(stdout, "media %s (%d bytes): %d copied, %d already there\n", o.Key, o.Size, r.Copied, r.Skipped)
		}
	}
	r, err := migrate.Run(ctx, cfg)
	switch {
	case errors.Is(err, migrate.ErrSourceInUse):
		return fmt.Errorf("--from %s: %w", *from, err)
	case errors.Is(err, migrate.ErrNoSource):
		return fmt.Errorf("--from %s: %w", *from, err)
	case errors.Is(err, migrate.ErrTargetMediaTaken):
		return fmt.Errorf("--to-media %s: %w", server.DescribeMedia(cfg.ToMedia), err)
	case errors.Is(err, migrate.ErrTargetNotEmpty):
		return fmt.Errorf("--to-database: %w; migrate copies into an empty database only (drop and re-create it, or give another)", err)
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "media: %d files copied (%d bytes), %d already there (%d bytes), in %s\n",
		r.Media.Copied, r.Media.CopiedBytes, r.Media.Skipped, r.Media.SkippedBytes, r.MediaTime.Round(time.Millisecond))
	fmt.Fprintf(stdout, "database: %d rows of %d tables copied from %s, in %s\n",
		r.Rows.Total(), len(r.Rows.Tables), r.SourceFile, r.DatabaseTime.Round(time.Millisecond))
	for _, t := range r.Rows.Tables {
		fmt.Fprintf(stdout, "  %-20s %d\n", t.Table, t.Rows)
	}
	fmt.Fprintln(stdout, "done: start clipperd serve --database <the --to-database URL> --media <the --to-media value> (and workers alike)")
	fmt.Fprintf(stdout, "every process needs the master key the secrets are sealed with: %s (as %s or --master-key-file)\n", masterFrom, masterkey.Env)
	return nil
}

// notTheSource refuses a --to-media directory that is where the source's
// media already are: the copy would be onto itself.
func notTheSource(toMedia, from, fromMedia string) error {
	if s3blob.IsURL(toMedia) {
		return nil
	}
	src := fromMedia
	if src == "" {
		src = from
	}
	a, err1 := filepath.Abs(toMedia)
	b, err2 := filepath.Abs(src)
	if err1 == nil && err2 == nil && a == b {
		return fmt.Errorf("%w: migrate: --to-media %s is the source's own media directory", errUsage, toMedia)
	}
	return nil
}
