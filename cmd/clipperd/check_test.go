package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/blob/miniotest"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/install"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
	"github.com/minio/minio-go/v7"
)

// scaleOut is an installation over a real PostgreSQL and MinIO, its first
// process started: the flags every later process gives.
type scaleOut struct {
	minio    *miniotest.Server
	bucket   string
	database string
	keyFile  string
}

func newScaleOut(t *testing.T) *scaleOut {
	t.Helper()
	s := &scaleOut{minio: miniotest.Start(t), database: storetest.PostgresURL(t)}
	s.minio.Env(t)
	s.bucket = s.minio.NewBucket(t)
	_, text := masterkey.Generate()
	s.keyFile = filepath.Join(t.TempDir(), "master.key")
	if err := os.WriteFile(s.keyFile, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	log := serveInProcess(t, s.flags("prod")...)
	if !strings.Contains(log.String(), `msg="installation: new"`) {
		t.Fatalf("the first process logged no new installation:\n%s", log)
	}
	return s
}

// flags are a process's flags with the media under prefix.
func (s *scaleOut) flags(prefix string) []string {
	return []string{"--database", s.database, "--media", s.minio.URL(s.bucket, prefix), "--master-key-file", s.keyFile, "--asr", "none"}
}

// workerArgs are the arguments of a worker on a data directory of its own
// with the media under prefix.
func (s *scaleOut) workerArgs(t *testing.T, prefix string) []string {
	return append([]string{"worker", "--data", t.TempDir(), "--public-url", "http://127.0.0.1:8787", "--metrics-listen", "off"}, s.flags(prefix)...)
}

// refused runs args, which must fail at start, and returns the error and
// how long the refusal took.
func refused(t *testing.T, args []string) (time.Duration, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	start := time.Now()
	err := run(t.Context(), args, &out, &errOut)
	took := time.Since(start)
	if err == nil {
		t.Fatalf("%v started; want a refusal", args)
	}
	return took, err
}

// TestBadSettingsRefusedAtStart, on a real PostgreSQL and MinIO: beside a
// running installation (media s3://BUCKET/prod), a worker with the
// mistyped prefix prdo is refused naming the database, the prefix given
// and the one recorded, and writes no marker there; a bucket address with
// one slash, without a bucket, or another scheme is a usage error naming
// --media; read-only credentials are refused by the probe before any job
// is claimed; the worker's refusals name it first; `accounts connect` with
// the mistyped prefix is refused as the worker is, and with the right one
// connects. The time to each refusal is logged (no assertion on it: the
// machine is shared).
func TestBadSettingsRefusedAtStart(t *testing.T) {
	s := newScaleOut(t)

	took, err := refused(t, s.workerArgs(t, "prdo"))
	if !errors.Is(err, install.ErrNoMarker) || errors.Is(err, errUsage) ||
		!strings.Contains(err.Error(), "s3://"+s.bucket+"/prdo") || !strings.Contains(err.Error(), "s3://"+s.bucket+"/prod") ||
		!strings.Contains(err.Error(), store.DescribeLocation(s.database)) {
		t.Errorf("worker with the prefix prdo: %v; want a refusal naming the database, prdo and prod", err)
	}
	if !strings.HasPrefix(err.Error(), "worker: ") {
		t.Errorf("worker's refusal %q does not name the command first", err)
	}
	t.Logf("mistyped prefix refused in %s: %v", took.Round(time.Millisecond), err)
	if objs, err := s.minio.Client.StatObject(t.Context(), s.bucket, "prdo/installation/marker.json", minio.StatObjectOptions{}); err == nil {
		t.Errorf("the refused worker wrote a marker under prdo: %+v", objs)
	}

	for _, bad := range []struct{ media, want string }{
		{"s3:/" + s.bucket + "/prod", "two slashes"},
		{"s3://", `bucket ""`},
		{"ftp://files.example/clips", "ftp:// is no media store"},
	} {
		args := append(s.workerArgs(t, "prod"), "--media", bad.media)
		took, err := refused(t, args)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--media") || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--media %s: %v; want a usage error naming --media and %q", bad.media, err, bad.want)
		}
		t.Logf("--media %s refused in %s: %v", bad.media, took.Round(time.Millisecond), err)
	}

	// The store commands take the same --media and check it as the
	// processes do.
	connect := func(prefix string) []string {
		return []string{"accounts", "connect", "--data", t.TempDir(), "--database", s.database, "--media", s.minio.URL(s.bucket, prefix),
			"--master-key-file", s.keyFile, "--org", "o", "--platform", "YOUTUBE", "--name", "n"}
	}
	if _, err := refused(t, connect("prdo")); !errors.Is(err, install.ErrNoMarker) || !strings.Contains(err.Error(), "s3://"+s.bucket+"/prdo") {
		t.Errorf("accounts connect with the prefix prdo: %v; want the refusal naming prdo", err)
	}
	var out, errOut bytes.Buffer
	if err := run(t.Context(), connect("prod"), &out, &errOut); err != nil {
		t.Errorf("accounts connect with the installation's --media: %v\n%s", err, errOut.String())
	}

	access, secret, token := s.minio.ReadOnly(t, s.bucket)
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", token)
	took, err = refused(t, s.workerArgs(t, "prod"))
	if !errors.Is(err, install.ErrCannotWrite) || !strings.Contains(err.Error(), "Access Denied") || !strings.Contains(err.Error(), "s3://"+s.bucket+"/prod") {
		t.Errorf("worker with read-only credentials: %v; want the probe's refusal naming the media and the denial", err)
	}
	t.Logf("read-only credentials refused in %s: %v", took.Round(time.Millisecond), err)
}

// checkLine matches the line of one check in check's output.
func checkLine(out, status, name string) bool {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(status) + ` +` + regexp.QuoteMeta(name) + ` `).MatchString(out)
}

// runCheck runs clipperd check and returns its output and error.
func runCheck(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(t.Context(), append([]string{"check"}, args...), &out, &errOut)
	return out.String(), err
}

// TestCheck, on a real PostgreSQL and MinIO: check with a good process's
// flags prints nine ok lines and succeeds; each bad setting fails its own
// line (and only it) and the exit: a mistyped prefix (installation),
// read-only credentials (media), another master key (master key), an
// unreachable database (database, and what needs it), tools missing from
// PATH, and too little free space.
func TestCheck(t *testing.T) {
	s := newScaleOut(t)
	data := t.TempDir()
	good := append([]string{"--data", data}, s.flags("prod")...)
	names := []string{"database", "schema", "master key", "media", "installation", "ffmpeg", "ffprobe", "pocketsphinx", "free space"}

	out, err := runCheck(t, good...)
	if err != nil {
		t.Fatalf("check of a good installation: %v\n%s", err, out)
	}
	for _, n := range names {
		if !checkLine(out, "ok", n) {
			t.Errorf("check of a good installation has no ok line for %s:\n%s", n, out)
		}
	}
	t.Logf("good installation:\n%s", out)

	// Each bad setting: the lines that must fail; every other must pass.
	_, otherKey := masterkey.Generate()
	otherKeyFile := filepath.Join(t.TempDir(), "other.key")
	if err := os.WriteFile(otherKeyFile, []byte(otherKey), 0o600); err != nil {
		t.Fatal(err)
	}
	onlyFFmpeg := t.TempDir()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(path, filepath.Join(onlyFFmpeg, tool)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		path string // PATH for the check, when set
		fail []string
		want string // in the first failing line
	}{
		{"mistyped prefix", slices.Concat(good, []string{"--media", s.minio.URL(s.bucket, "prdo")}), "", []string{"installation"}, "prdo"},
		{"another master key", slices.Concat(good, []string{"--master-key-file", otherKeyFile}), "", []string{"master key"}, "does not open"},
		{"unreachable database", slices.Concat(good, []string{"--database", "postgres://clipper:clipper@127.0.0.1:1/clipper?sslmode=disable&connect_timeout=5"}), "",
			[]string{"database", "schema", "master key", "installation"}, "127.0.0.1:1"},
		{"no tools on PATH", good, t.TempDir(), []string{"ffmpeg", "ffprobe"}, "not on PATH"},
		{"no recogniser", slices.Clone(good[:len(good)-2]), onlyFFmpeg, []string{"pocketsphinx"}, "--asr none"},
		{"too little free space", slices.Concat(good, []string{"--min-free", "1000000TiB"}), "", []string{"free space"}, "below --min-free"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.path != "" {
				t.Setenv("PATH", c.path)
			}
			out, err := runCheck(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), "failed") {
				t.Errorf("check: %v, want it to fail", err)
			}
			for _, n := range names {
				status := "ok"
				if slices.Contains(c.fail, n) {
					status = "FAIL"
				}
				if !checkLine(out, status, n) {
					t.Errorf("want %s for %s:\n%s", status, n, out)
				}
			}
			first := regexp.MustCompile(`(?m)^FAIL .*$`).FindString(out)
			if !strings.Contains(first, c.want) {
				t.Errorf("first FAIL line %q does not say %q", first, c.want)
			}
			t.Logf("%s:\n%s", c.name, out)
		})
	}

	t.Run("read-only credentials", func(t *testing.T) {
		access, secret, token := s.minio.ReadOnly(t, s.bucket)
		t.Setenv("AWS_ACCESS_KEY_ID", access)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
		t.Setenv("AWS_SESSION_TOKEN", token)
		out, err := runCheck(t, good...)
		if err == nil || !checkLine(out, "FAIL", "media") || !strings.Contains(out, "Access Denied") || !checkLine(out, "ok", "installation") {
			t.Errorf("check with read-only credentials: %v; want FAIL media (Access Denied), ok installation:\n%s", err, out)
		}
		t.Logf("read-only credentials:\n%s", out)
	})
}

// TestMigratedInstallationChecksOut: migrate refuses target media that
// carry another installation's marker, before it copies a row; into media
// of their own it carries the single box's installation (its id in the
// rows, its marker in the media), and check passes on the moved one.
func TestMigratedInstallationChecksOut(t *testing.T) {
	ctx := t.Context()
	from := t.TempDir()
	createKey(t, from, "org-acme", "user-ann")
	st := openData(t, from)
	fromMedia, err := blob.NewDir(from, nil)
	if err != nil {
		t.Fatal(err)
	}
	in, err := install.Ensure(ctx, st, fromMedia, install.Locations{Database: from, Media: from}, nil)
	_ = st.Close()
	if err != nil {
		t.Fatal(err)
	}

	taken := t.TempDir()
	otherKey, _ := masterkey.Generate()
	other, err := store.Open(ctx, filepath.Join(t.TempDir(), "other.db"), store.WithMasterKey(otherKey))
	if err != nil {
		t.Fatal(err)
	}
	takenMedia, _ := blob.NewDir(taken, nil)
	if _, err := install.Ensure(ctx, other, takenMedia, install.Locations{Database: "other.db", Media: taken}, nil); err != nil {
		t.Fatal(err)
	}
	_ = other.Close()

	url := storetest.PostgresURL(t)
	out, err := runMigrate(t, "--from", from, "--to-database", url, "--to-media", taken)
	if err == nil || !strings.Contains(err.Error(), "--to-media "+taken) || !strings.Contains(err.Error(), "another installation") {
		t.Errorf("migrate into another installation's media: %v; want a refusal naming --to-media\n%s", err, out)
	}

	to := t.TempDir()
	if out, err := runMigrate(t, "--from", from, "--to-database", url, "--to-media", to, "--quiet"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	keyFile, err := masterkey.Locate("", "", from)
	if err != nil {
		t.Fatal(err)
	}
	out, err = runCheck(t, "--data", t.TempDir(), "--database", url, "--media", to, "--master-key-file", keyFile, "--asr", "none")
	if err != nil || !strings.Contains(out, in.ID+": the media carry its marker") {
		t.Errorf("check of the moved installation: %v; want it to pass with the single box's %s:\n%s", err, in.ID, out)
	}
}
