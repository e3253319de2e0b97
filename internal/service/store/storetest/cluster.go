package storetest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// Cluster is a PostgreSQL server of a test's own: initdb in a temporary
// directory, served on a free loopback port, which the test stops and
// starts again to restart the database under the store. The shared server
// of PostgresURL cannot be restarted under the other tests.
type Cluster struct {
	URL string // of its database "postgres", as user postgres (trust)

	bin, dir string
	port     int
	as       []string // the command prefix that runs as the postgres user
}

// StartCluster makes and starts a cluster for tb, stopped and removed when
// tb ends. It needs Debian's PostgreSQL binaries and, under root, the
// postgres user; without them tb is skipped, or failed under CI.
func StartCluster(tb testing.TB) *Cluster {
	tb.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	var as []string
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err == nil {
			as = []string{"runuser", "-u", "postgres", "--"}
		}
	}
	if len(bins) == 0 || (os.Geteuid() == 0 && as == nil) {
		msg := "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin) or no postgres user to run them as"
		if toolexectest.InCI() {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	// Not tb.TempDir: its parent is private to this user, and the server
	// runs as postgres.
	dir, err := os.MkdirTemp("", "clipper-pg-") //nolint:usetesting // see above
	if err != nil {
		tb.Fatal(err)
	}
	c := &Cluster{bin: filepath.Dir(bins[len(bins)-1]), dir: dir, as: as, port: freePort(tb)}
	tb.Cleanup(func() {
		_ = c.pgctl("stop", "-m", "immediate")
		_ = os.RemoveAll(dir)
	})
	if as != nil {
		u, _ := user.Lookup("postgres")
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			tb.Fatal(err)
		}
	}
	if out, err := c.run("initdb", "-D", filepath.Join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		tb.Fatalf("initdb: %v\n%s", err, out)
	}
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	c.Start(tb)
	return c
}

// Start starts the stopped cluster on its port and returns once it takes
// connections.
func (c *Cluster) Start(tb testing.TB) {
	tb.Helper()
	if err := c.pgctl("start", "-w", "-l", filepath.Join(c.dir, "log"),
		"-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", c.port, c.dir)); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		tb.Fatalf("start PostgreSQL: %v\n%s", err, log)
	}
}

// Stop stops the cluster as a restart does (pg_ctl stop -m fast): every
// session ends with 57P01 admin_shutdown, and connections are refused
// until Start.
func (c *Cluster) Stop(tb testing.TB) {
	tb.Helper()
	if err := c.pgctl("stop", "-w", "-m", "fast"); err != nil {
		tb.Fatalf("stop PostgreSQL: %v", err)
	}
}

func (c *Cluster) pgctl(args ...string) error {
	out, err := c.run("pg_ctl", append([]string{"-D", filepath.Join(c.dir, "data")}, args...)...)
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

func (c *Cluster) run(tool string, args ...string) ([]byte, error) {
	argv := append(append(append([]string{}, c.as...), filepath.Join(c.bin, tool)), args...)
	cmd := exec.CommandContext(context.Background(), argv[0], argv[1:]...)
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// freePort is a loopback port nothing listened on a moment ago.
func freePort(tb testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
