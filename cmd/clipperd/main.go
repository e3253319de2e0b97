// Command clipperd is a self-hosted implementation of the clipping
// service's HTTP API that clips video with ffmpeg.
//
//	clipperd serve [--listen 127.0.0.1:8787] [--data ./clipperd-data] [--workers N] ...
//	clipperd worker --database URL|FILE --media DIR|s3://... --public-url URL [--workers N] ...
//	clipperd check [the flags of serve or worker]
//	clipperd keys create --data DIR --org ORG --user USER
//	clipperd keys list --data DIR
//	clipperd keys revoke --data DIR KEY|PREFIX
//	clipperd accounts connect --data DIR --org ORG --platform YOUTUBE --name NAME [--publish-to dir|webhook:URL]
//	clipperd accounts list --data DIR --org ORG
//	clipperd accounts disconnect --data DIR --org ORG --account ID
//	clipperd templates create --data DIR --org ORG --name NAME [--default] [--aspect A] [--fit] [--watermark]
//	clipperd broll add|list|remove --data DIR --org ORG [--file FILE --keywords A,B | --id ITEM]
//	clipperd media-key rotate --data DIR
//	clipperd repair --data DIR
//	clipperd backup --data DIR --to BACKUP
//	clipperd restore --from BACKUP --to DIR
//	clipperd sample --out FILE [--duration 90s] [--width 1280 --height 720]
//	clipperd migrate --from DATA --to-database postgres://... --to-media s3://...|DIR
//
// Every command that opens the state also takes --database: a postgres://
// URL, or a SQLite file (default DATA/clipperd.db).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/datalock"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/install"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

const usage = `usage:
  clipperd serve [flags]                               run the API server, and by default the work too (serve -h lists
                                                       the flags); --workers 0 makes an API-only node
  clipperd worker --database URL|FILE --media DIR|s3://BUCKET/PREFIX --public-url URL [flags]
                                                       run the work (projects, deliveries, posts, copy and censor jobs,
                                                       schedules) without an API, beside serve processes (worker -h)
  clipperd check [the flags of serve or worker]        check what such a process needs, one line each (ok or FAIL):
                                                       database, schema, master key, media and their installation
                                                       marker, ffmpeg, ffprobe, pocketsphinx, free space (check -h)
  clipperd keys create --data DIR --org ORG --user USER print a new API key (last word of the output; shown only then)
  clipperd keys list --data DIR                        list the keys by prefix, org, user and creation time
  clipperd keys revoke --data DIR KEY|PREFIX           delete an API key: the API refuses it, its gallery sessions end
  clipperd accounts connect --data DIR --org ORG --platform P --name NAME [--publish-to dir|webhook:URL]
                                                       record a connected social account (prints its postAccountId last);
                                                       its posts go to DATA/published (dir, the default) or a signed webhook
  clipperd accounts list --data DIR --org ORG         list the org's connected accounts and where each publishes
  clipperd accounts disconnect --data DIR --org ORG --account ID
                                                       forget an account and cancel its pending publish schedules
                                                       (posts already made are published as before)
  clipperd templates create --data DIR --org ORG --name NAME [--default] [--aspect portrait|square|landscape] [--fit] [--watermark]
                                                       store a brand template of the org (prints its templateId last)
  clipperd broll add --data DIR --org ORG --file FILE --keywords A,B,C
                                                       add an image or video to the org's b-roll library (prints its id
                                                       last); renders with enableBroll cut away to it when a keyword is said
  clipperd broll list --data DIR --org ORG             list the org's b-roll library
  clipperd broll remove --data DIR --org ORG --id ITEM remove an item and its picture
  clipperd media-key rotate --data DIR                 replace the key that signs media addresses: every
                                                       address handed out so far stops working (revocation)
  clipperd repair --data DIR                           recover a damaged database (clipperd refuses to start on one):
                                                       keeps it aside as clipperd.db.damaged-TIME, copies every readable
                                                       row into a new one; stop clipperd first
  clipperd backup --data DIR --to BACKUP               copy the state (a snapshot of the database, then the media) into a
                                                       new or empty directory, while clipperd runs; never the master key
  clipperd restore --from BACKUP --to DIR [--master-key-file FILE]
                                                       put a backup in place in a new or empty data directory to serve,
                                                       with the master key of the installation it came from
  clipperd sample --out FILE [--duration 90s] [--width 1280 --height 720]
                                                       write a generated sample video
  clipperd migrate --from DATA --to-database postgres://... --to-media s3://BUCKET/PREFIX?endpoint=...|DIR
                                                       copy a stopped single box (SQLite, media) into PostgreSQL and a
                                                       bucket or directory (migrate -h tells more)

Every command with --data also takes --database URL|FILE: the state in PostgreSQL
(postgres://USER:PASSWORD@HOST/DB) or a SQLite file (default DATA/clipperd.db), and
--master-key-file FILE: the key that seals the stored secrets (default
~/.config/clipperd/master.key, made at first start and never in a backup; an older
installation's DATA/master.key is still used, with a warning to move it;
CLIPPERD_MASTER_KEY, base64 of 32 bytes, wins over it). The commands that change an
installation (keys, accounts, templates, broll, media-key) also take --media as serve does,
and refuse media that belong to another installation than the database's.
`

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage error")

func main() {
	// SIGINT/SIGTERM cancel ctx; serve then stops gracefully.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "clipperd:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "clipperd:", err)
		os.Exit(1)
	}
}

// command runs one command with its arguments (after the command's name).
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// commands are clipperd's commands by name; keys, accounts, templates and
// media-key take a subcommand first.
var commands = map[string]command{
	"serve": func(ctx context.Context, args []string, _, stderr io.Writer) error {
		return commandError("serve", serve(ctx, args, stderr))
	},
	"worker": func(ctx context.Context, args []string, _, stderr io.Writer) error {
		return commandError("worker", worker(ctx, args, stderr))
	},
	"check": checkCmd,
	"keys": subcommands("keys", map[string]command{
		"create": keysCreate, "list": keysList, "revoke": keysRevoke,
	}, "create, list or revoke"),
	"accounts": subcommands("accounts", map[string]command{
		"connect": accountsConnect, "list": accountsList, "disconnect": accountsDisconnect,
	}, "connect, list or disconnect"),
	"templates": subcommands("templates", map[string]command{"create": templatesCreate}, "create"),
	"broll":     brollCmd,
	"media-key": subcommands("media-key", map[string]command{"rotate": mediaKeyRotate}, "rotate"),
	"repair":    repair,
	"backup":    backupCmd,
	"restore":   restoreCmd,
	"sample":    sample,
	"migrate":   migrateCmd,
}

// subcommands dispatches a command's first argument to its subcommand;
// names lists them for the usage error.
func subcommands(name string, subs map[string]command, names string) command {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 {
			if sub, ok := subs[args[0]]; ok {
				return sub(ctx, args[1:], stdout, stderr)
			}
		}
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: %s takes the subcommand %s", errUsage, name, names)
	}
}

// run executes one command line (without the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: a command is required", errUsage)
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	return cmd(ctx, args[1:], stdout, stderr)
}

// commandError prefixes a long-running command's error with its name, so an
// operator running serve and worker processes side by side (journald, one
// terminal) sees which one stopped; usage errors name it already.
func commandError(name string, err error) error {
	if err == nil || errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// parseFlags parses fs and turns a bad flag into errUsage (flag prints the details).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %s: %w", errUsage, fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s: unexpected argument %q", errUsage, fs.Name(), fs.Arg(0))
	}
	return nil
}

const databaseUsage = "the state's database: a postgres:// URL (several clipperd processes may share it) or a SQLite file (default DATA/clipperd.db)"

const masterKeyFileUsage = "the file of the master key that seals the stored secrets (default: DATA/" + masterkey.DefaultFile +
	" when an older installation made it there, else " + masterkey.DefaultDir + "/" + masterkey.DefaultFile +
	" in the user's configuration directory, made at first start, outside the data directory so a copy of it opens nothing; " +
	masterkey.Env + " wins over it). Processes sharing a PostgreSQL database must share the key"

// stateFlags say where a server's state is, for the commands that open its
// store.
type stateFlags struct {
	dir, database, masterKeyFile *string
	// media is --media of the commands that take it (nil for the others):
	// the installation's media, checked against its database at open.
	media *string
}

func storeFlags(fs *flag.FlagSet) stateFlags {
	return stateFlags{
		dir:           fs.String("data", "./clipperd-data", "data directory of the server"),
		database:      fs.String("database", "", databaseUsage),
		masterKeyFile: fs.String("master-key-file", "", masterKeyFileUsage),
	}
}

// installationFlags are storeFlags and --media, for the commands that
// change an installation (keys, accounts, templates, broll, media-key): an
// operator passes them the flags of serve and worker, and a database
// given with another installation's media is refused, as serve refuses it.
func installationFlags(fs *flag.FlagSet) stateFlags {
	f := storeFlags(fs)
	f.media = fs.String("media", "", "where the media are kept, as serve's --media (default: the data directory); checked to belong to the database's installation")
	return f
}

// open opens the store of a command, its secrets sealed with the master
// key of CLIPPERD_MASTER_KEY, --master-key-file or the default key file,
// as the server finds it (masterkey.Resolve). On a SQLite file it holds the data
// directory's shared lock until Close, as serve does, so a change made
// while `clipperd migrate` copies the directory (and would miss it) is
// refused instead.
func (f stateFlags) open(ctx context.Context) (*lockedStore, error) {
	key, _, err := masterkey.ResolveFor(store.Locate(*f.database).Shared(), os.Getenv(masterkey.Env), *f.masterKeyFile, *f.dir)
	if err != nil {
		return nil, err
	}
	var lock *datalock.Lock
	if store.Locate(*f.database).InDataDir() {
		if lock, err = datalock.Shared(*f.dir); err != nil {
			return nil, fmt.Errorf("%w: `clipperd migrate` is copying it", err)
		}
	}
	st, err := store.Open(ctx, store.Location(*f.database, *f.dir), store.WithMasterKey(key))
	if err != nil {
		_ = lock.Release()
		return nil, err
	}
	if err := f.checkMedia(ctx, st); err != nil {
		_ = st.Close()
		_ = lock.Release()
		return nil, err
	}
	return &lockedStore{st, lock}, nil
}

// checkMedia checks the installation: against --media when it is given,
// else against the data directory where the database says its media are
// there (checkLocalMedia).
func (f stateFlags) checkMedia(ctx context.Context, st *store.Store) error {
	if f.media == nil || *f.media == "" {
		return f.checkLocalMedia(ctx, st)
	}
	m, err := f.openMedia(ctx)
	if err != nil {
		return err
	}
	_, err = install.Verify(ctx, st, m, f.locations(m))
	return err
}

// openMedia opens --media, or the data directory when it is not given.
func (f stateFlags) openMedia(ctx context.Context) (blob.Store, error) {
	if f.media == nil || *f.media == "" {
		return blob.NewDir(*f.dir, nil)
	}
	if err := server.CheckMedia(*f.media); err != nil {
		return nil, fmt.Errorf("--media: %w", err)
	}
	m, err := server.OpenMedia(ctx, *f.media, nil)
	if err != nil {
		return nil, fmt.Errorf("--media: %w", err)
	}
	return m, nil
}

// locations names the state's database and media m for messages.
func (f stateFlags) locations(m blob.Store) install.Locations {
	return install.Locations{Database: store.DescribeLocation(store.Location(*f.database, *f.dir)), Media: server.DescribeMedia(m)}
}

// ensureInstallation checks, as serve does, that the media m a command
// opened belong to the store's installation (and adopts them for a new or
// older installation, logged to stderr).
func (f stateFlags) ensureInstallation(ctx context.Context, st *store.Store, m blob.Store, stderr io.Writer) error {
	_, err := install.Ensure(ctx, st, m, f.locations(m), slog.New(slog.NewTextHandler(stderr, nil)))
	return err
}

// checkLocalMedia checks the installation of a command that opens the
// store alone, where it can: when the database says its media are the data
// directory given (a single box), the marker must be there; a database of
// another directory, or one given by --database beside the wrong --data,
// is refused. Media elsewhere (a bucket) are checked by the processes that
// open them.
func (f stateFlags) checkLocalMedia(ctx context.Context, st *store.Store) error {
	in, err := st.Installation(ctx)
	if errors.Is(err, store.ErrNoInstallation) {
		return nil
	}
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(*f.dir)
	if err != nil {
		return fmt.Errorf("--data %s: %w", *f.dir, err)
	}
	if !in.Marked || in.Media != dir {
		return nil
	}
	d, err := blob.NewDir(dir, nil)
	if err != nil {
		return err
	}
	_, err = install.Verify(ctx, st, d, f.locations(d))
	return err
}

// lockedStore is a store that lets its data directory's lock go when closed.
type lockedStore struct {
	*store.Store
	lock *datalock.Lock
}

func (s *lockedStore) Close() error {
	err := s.Store.Close()
	_ = s.lock.Release()
	return err
}
