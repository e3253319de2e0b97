package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// buildClipperd builds cmd/clipperd of the source tree at dir into out.
// -trimpath keeps the build cache shared between checkouts in different
// directories, so the second build of the same sources is quick.
func buildClipperd(ctx context.Context, dir, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, "./cmd/clipperd")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/clipperd in %s: %w: %s", dir, err, b)
	}
	return nil
}

// buildAtRevision builds clipperd as it was at rev, in a temporary git
// worktree that is removed again.
func buildAtRevision(ctx context.Context, rev, work, out string) (err error) {
	src := filepath.Join(work, "src-"+rev)
	if b, err := exec.CommandContext(ctx, "git", "worktree", "add", "--detach", src, rev).CombinedOutput(); err != nil {
		return fmt.Errorf("git worktree add %s: %w: %s", rev, err, b)
	}
	defer func() {
		if b, rerr := exec.Command("git", "worktree", "remove", "--force", src).CombinedOutput(); rerr != nil && err == nil {
			err = fmt.Errorf("git worktree remove %s: %w: %s", src, rerr, b)
		}
	}()
	return buildClipperd(ctx, src, out)
}

// clipperdProc is a clipperd serve process on a loopback port with a data
// directory of its own and one API key.
type clipperdProc struct {
	cmd     *exec.Cmd
	baseURL string
	key     string
	exited  chan struct{} // closed when the process has ended, waitErr set
	waitErr error
}

// startClipperd creates a key in a new data directory under work, starts
// `bin serve` on a free loopback port and waits for /healthz.
func startClipperd(ctx context.Context, bin, work string) (*clipperdProc, error) {
	data, err := os.MkdirTemp(work, "data-")
	if err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, bin, "keys", "create", "--data", data, "--org", "org-load", "--user", "user-load").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s keys create: %w: %s", bin, err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return nil, fmt.Errorf("%s keys create printed no key", bin)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, "serve", "--data", data, "--listen", addr, "--rate-limit", "1000000", "--metrics-listen", "off", "--log-level", "error")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &clipperdProc{cmd: cmd, baseURL: "http://" + addr, key: fields[len(fields)-1], exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if err := p.waitHealthy(ctx); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// freePort is a loopback port nobody listens on right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil //nolint:forcetypeassert // a tcp listener's address
}

func (p *clipperdProc) waitHealthy(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("clipperd exited before serving: %v", p.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get(p.baseURL + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("clipperd did not answer /healthz within 30s")
}

// stop interrupts the process and waits for it, killing it after 10 s.
func (p *clipperdProc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// status reads a field of /proc/PID/status in kB ("VmHWM", "VmRSS").
func (p *clipperdProc) status(field string) (kB int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && name == field {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, p.cmd.Process.Pid)
}

// cpuTime is the CPU time (user and system) the process has used so far,
// from /proc/PID/stat: what it costs, whatever share of the cores the
// machine's other load leaves it.
func (p *clipperdProc) cpuTime() (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; the fields after its ')' are fixed.
	_, rest, ok := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", p.cmd.Process.Pid, data)
	}
	var ticks int64
	for _, v := range f[11:13] { // utime and stime, fields 14 and 15
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", p.cmd.Process.Pid, err)
		}
		ticks += n
	}
	const clockTicks = 100 // USER_HZ, 100 on every Linux architecture Go supports
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// fdLimit is the process's soft limit of open files, from /proc/PID/limits.
func (p *clipperdProc) fdLimit() (string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", p.cmd.Process.Pid))
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0], nil
			}
		}
	}
	return "", fmt.Errorf("no open files limit in /proc/%d/limits", p.cmd.Process.Pid)
}

// openFDs is how many file descriptors the process holds.
func (p *clipperdProc) openFDs() (int, error) {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.cmd.Process.Pid))
	return len(entries), err
}

// raiseFDLimit raises this process's soft descriptor limit to the hard
// one: the idle phase holds thousands of connections at once.
func raiseFDLimit(need uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur < need {
		return lim.Cur, fmt.Errorf("descriptor limit %d is below the %d the idle phase needs; raise the hard limit (ulimit -Hn)", lim.Cur, need)
	}
	return lim.Cur, nil
}
