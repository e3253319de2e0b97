package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// runProviderEnv makes the test binary run main instead of the tests, as
// the child of a shell that the test kills.
const runProviderEnv = "CLIPPER_TEST_RUN_PROVIDER"

func TestMain(m *testing.M) {
	if os.Getenv(runProviderEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// A provider whose parent (Terraform) dies without stopping it, as a crash
// does, exits on its own instead of running on as an orphan.
func TestProviderExitsWithItsParent(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The shell stands for Terraform: it starts the provider, prints its
	// pid and waits; the test then kills it, leaving the provider an orphan.
	sh := exec.Command("sh", "-c", `"$0" -test.run=^$ & echo $!; wait`, self)
	sh.Env = append(os.Environ(), runProviderEnv+"=1",
		// go-plugin's handshake, which Terraform sets for its providers.
		"TF_PLUGIN_MAGIC_COOKIE=d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2")
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("the shell printed no pid: %v", lines.Err())
	}
	pid, err := strconv.Atoi(strings.TrimSpace(lines.Text()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	// The provider is up once it prints go-plugin's handshake line.
	if !lines.Scan() || !strings.Contains(lines.Text(), "|") {
		t.Fatalf("no plugin handshake from the provider: %q %v", lines.Text(), lines.Err())
	}
	if err := sh.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = sh.Wait()
	// The provider looks at its parent every second.
	toolexectest.WaitGone(t, pid, 2*time.Minute, "the provider")
}
