package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/install"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/quota"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/transcribe"
	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec"
)

const checkUsage = `usage: clipperd check [the flags of serve or worker]

Checks what a serve or worker process with the same flags needs, one line
each, "ok" or "FAIL" with what was found: the database is reachable, its
schema's version, the master key opens its secrets, the media are readable
and writable, they carry the marker of the database's installation, ffmpeg,
ffprobe and the speech recogniser are found (with their versions), and the
free space under DATA/tmp, where jobs keep their temporary files. It
changes nothing but a probe object written and deleted under the media; it
migrates nothing and makes no key. The exit status is 1 when a line fails.

Flags:
`

// DefaultMinFree is the free space under DATA/tmp below which check fails.
const DefaultMinFree = 2 << 30

// toolTimeout bounds one tool's -version.
const toolTimeout = 20 * time.Second

// checkCmd is `clipperd check`: see checkUsage.
func checkCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), checkUsage)
		fs.PrintDefaults()
	}
	var cfg server.Config
	work := addWorkFlags(fs, &cfg, serveWorkersUsage)
	addServeFlags(fs, &cfg)
	minFree := fs.String("min-free", quota.FormatSize(DefaultMinFree), "free space under DATA/tmp below which the check fails, e.g. 10GiB")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := work.check(fs, &cfg); err != nil {
		return err
	}
	least, err := quota.ParseSize(*minFree)
	if err != nil {
		return fmt.Errorf("%w: --min-free: %v", errUsage, err)
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return fmt.Errorf("%w: --data %q: %v", errUsage, cfg.DataDir, err)
	}
	c := &checker{out: stdout}
	st := c.database(ctx, cfg, dataDir)
	if st != nil {
		defer st.Close()
	}
	c.media(ctx, cfg, dataDir, st)
	c.tool(ctx, "ffmpeg", "ffmpeg", "-version")
	c.tool(ctx, "ffprobe", "ffprobe", "-version")
	c.recogniser(ctx, fs, cfg)
	c.freeSpace(filepath.Join(dataDir, "tmp"), least)
	if c.failed > 0 {
		return fmt.Errorf("check: %d of %d checks failed", c.failed, c.lines)
	}
	return nil
}

// checker prints one line per check and counts the failures.
type checker struct {
	out           io.Writer
	lines, failed int
}

func (c *checker) ok(name, format string, args ...any) {
	c.lines++
	fmt.Fprintf(c.out, "ok    %-13s %s\n", name, fmt.Sprintf(format, args...))
}

func (c *checker) fail(name, format string, args ...any) {
	c.lines++
	c.failed++
	fmt.Fprintf(c.out, "FAIL  %-13s %s\n", name, fmt.Sprintf(format, args...))
}

// database checks the database, its schema and the master key on its
// secrets, and returns the store opened as it is (nil when it cannot be).
func (c *checker) database(ctx context.Context, cfg server.Config, dataDir string) *store.Store {
	loc := store.Location(cfg.Database, dataDir)
	where := store.DescribeLocation(loc)
	shared := store.Locate(loc).Shared()
	key, keyFrom, keyErr := checkKey(shared, cfg.MasterKey, cfg.MasterKeyFile, dataDir)
	if !shared {
		if _, err := os.Stat(loc); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				err = errors.New("no such file")
			}
			c.fail("database", "%s: %v (the first start of serve makes it; or give --database)", where, err)
			c.fail("schema", "not checked: no database")
			c.fail("master key", "not checked: no database")
			return nil
		}
	}
	openKey := key
	if openKey == nil {
		openKey, _ = masterkey.Generate() // opens nothing sealed; CheckMasterKey is not asked
	}
	st, err := store.Open(ctx, loc, store.WithMasterKey(openKey), store.AsIs())
	if err != nil {
		c.fail("database", "%v", err)
		c.fail("schema", "not checked: no database")
		c.fail("master key", "not checked: no database")
		return nil
	}
	c.ok("database", "%s reachable (%s)", where, st.Engine())

	have, want, err := st.SchemaVersion(ctx)
	switch {
	case err != nil:
		c.fail("schema", "%v", err)
	case have == want:
		c.ok("schema", "version %d, this release's", have)
	case have == 0:
		c.ok("schema", "none yet: the first start creates version %d", want)
	case have < want:
		c.ok("schema", "version %d: the next start migrates it to this release's %d", have, want)
	default:
		c.fail("schema", "version %d is newer than this release's %d: run the release that made it, or a newer one", have, want)
	}

	switch sealed, err := st.CheckMasterKey(ctx); {
	case keyErr != nil:
		c.fail("master key", "%v", keyErr)
	case err != nil && key == nil:
		c.fail("master key", "%v", err)
	case err != nil:
		c.fail("master key", "from %s: %v", keyFrom, err)
	case key == nil && sealed:
		c.fail("master key", "no key at %s, and the database's secrets are sealed with one: give it (--master-key-file or %s)", keyFrom, masterkey.Env)
	case key == nil:
		c.ok("master key", "none yet at %s: the first start makes it", keyFrom)
	case !sealed:
		c.ok("master key", "from %s (no secret sealed yet)", keyFrom)
	default:
		c.ok("master key", "from %s opens the database's secrets", keyFrom)
	}
	return st
}

// checkKey finds the master key as serve would, without making one: nil
// with where it would be made when there is none yet.
func checkKey(shared bool, env, file, dataDir string) (*masterkey.Key, string, error) {
	if shared {
		if strings.TrimSpace(env) == "" && file == "" {
			_, _, err := masterkey.ResolveShared(env, file)
			return nil, "", err
		}
		dataDir = ""
	}
	from, err := masterkey.Locate(env, file, dataDir)
	if err != nil {
		return nil, "", err
	}
	if from != masterkey.Env {
		if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
			if file != "" {
				return nil, from, fmt.Errorf("--master-key-file %s: no such file", file)
			}
			return nil, from, nil
		}
	}
	k, from, err := masterkey.Resolve(env, file, dataDir)
	return k, from, err
}

// media checks that the media open, take a probe object, and carry the
// marker of the database's installation.
func (c *checker) media(ctx context.Context, cfg server.Config, dataDir string, st *store.Store) {
	var (
		m   blob.Store
		err error
	)
	if cfg.Media == "" {
		m, err = blob.NewDir(dataDir, nil)
	} else {
		m, err = server.OpenMedia(ctx, cfg.Media, nil)
	}
	if err != nil {
		c.fail("media", "--media: %v", err)
		c.fail("installation", "not checked: no media")
		return
	}
	where := server.DescribeMedia(m)
	if err := install.Probe(ctx, m, where); err != nil {
		c.fail("media", "%v", err)
	} else {
		c.ok("media", "%s readable and writable (a probe object written, read back and deleted)", where)
	}
	if st == nil {
		c.fail("installation", "not checked: no database")
		return
	}
	if have, want, err := st.SchemaVersion(ctx); err != nil || have < want {
		marker, err := install.ReadMarker(ctx, m)
		switch {
		case err != nil:
			c.fail("installation", "media %s: %v", where, err)
		case marker != nil:
			c.ok("installation", "the media carry the marker of installation %s; the next start migrates the database and checks it", marker.Installation)
		default:
			c.ok("installation", "none yet: the next start migrates the database and adopts these media")
		}
		return
	}
	at := install.Locations{Database: store.DescribeLocation(store.Location(cfg.Database, dataDir)), Media: where}
	in, err := install.Verify(ctx, st, m, at)
	switch {
	case err != nil:
		c.fail("installation", "%v", err)
	case in.ID == "":
		c.ok("installation", "none yet: the next start records one and adopts these media")
	case !in.Marked:
		c.ok("installation", "%s, recorded; the next start writes its marker in these media", in.ID)
	default:
		c.ok("installation", "%s: the media carry its marker", in.ID)
	}
}

// tool checks that name is on PATH and answers args with its version.
func (c *checker) tool(ctx context.Context, name, tool string, args ...string) {
	path, err := exec.LookPath(tool)
	if err != nil {
		c.fail(name, "%s is not on PATH: %v", tool, err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	out, err := toolexec.Command(ctx, path, args...).CombinedOutput()
	if err != nil {
		c.fail(name, "%s %s: %v", path, strings.Join(args, " "), err)
		return
	}
	c.ok(name, "%s: %s", path, firstLine(string(out)))
}

// recogniser checks the speech recogniser --asr chooses: pocketsphinx on
// PATH, or nothing to find for the others; no recogniser because none was
// found fails (pass --asr none to run without transcripts).
func (c *checker) recogniser(ctx context.Context, fs *flag.FlagSet, cfg server.Config) {
	const name = "pocketsphinx"
	switch {
	case cfg.ASR == transcribe.KindPocketsphinx:
		path, err := exec.LookPath(transcribe.PocketsphinxTool)
		if err != nil {
			c.fail(name, "--asr pocketsphinx: %s is not on PATH: %v", transcribe.PocketsphinxTool, err)
			return
		}
		c.ok(name, "%s%s", path, pocketsphinxVersion(ctx))
	case cfg.ASR == transcribe.KindNone && !asrSet(fs):
		c.fail(name, "%s is not on PATH: no transcripts (install pocketsphinx and pocketsphinx-en-us, or pass --asr none to run without, or another --asr)", transcribe.PocketsphinxTool)
	default:
		c.ok(name, "not used: --asr %s", cfg.ASR)
	}
}

// pocketsphinxVersion is ", version V" when the package manager knows the
// installed version (pocketsphinx itself prints none), else "".
func pocketsphinxVersion(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, toolTimeout)
	defer cancel()
	for _, q := range [][]string{
		{"dpkg-query", "-W", "-f", "${Version}", "pocketsphinx"},
		{"rpm", "-q", "--qf", "%{VERSION}", "pocketsphinx"},
	} {
		if _, err := exec.LookPath(q[0]); err != nil {
			continue
		}
		if out, err := toolexec.Command(ctx, q[0], q[1:]...).Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			return ", version " + strings.TrimSpace(string(out))
		}
	}
	return " (version unknown: not from a package)"
}

// freeSpace checks the free space of the file system dir is on (of its
// nearest existing parent, before the first start makes it).
func (c *checker) freeSpace(dir string, least int64) {
	at := dir
	for {
		if _, err := os.Stat(at); err == nil || filepath.Dir(at) == at {
			break
		}
		at = filepath.Dir(at)
	}
	var fsStat syscall.Statfs_t
	if err := syscall.Statfs(at, &fsStat); err != nil {
		c.fail("free space", "%s: %v", at, err)
		return
	}
	free := int64(fsStat.Bavail) * fsStat.Bsize
	if free < least {
		c.fail("free space", "%s under %s, below --min-free %s: renders and imports keep their temporary files there", quota.FormatSize(free), at, quota.FormatSize(least))
		return
	}
	c.ok("free space", "%s under %s (--min-free %s)", quota.FormatSize(free), at, quota.FormatSize(least))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if i := strings.Index(s, " Copyright"); i > 0 {
		s = s[:i]
	}
	return s
}
