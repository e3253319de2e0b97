package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
)

// unitsDir holds the systemd units clipperd ships (deploy/systemd).
const unitsDir = "../../deploy/systemd"

// The shipped units start clipperd with flags it accepts, with values it
// accepts, and stop it the way the guide says: SIGTERM to clipperd alone
// (KillMode=mixed), systemd's SIGKILL only well after the grace period
// (TimeoutStopSec at least twice --shutdown-grace: the stop itself takes
// the grace period and a few seconds), a restart on failure, and the
// secrets from an environment file.
func TestSystemdUnitsStartClipperdAsTheGuideSays(t *testing.T) {
	units := map[string]string{"clipperd.service": "serve", "clipperd-api.service": "serve", "clipperd-worker.service": "worker"}
	for name, command := range units {
		t.Run(name, func(t *testing.T) {
			service := readUnit(t, filepath.Join(unitsDir, name))["Service"]
			for key, want := range map[string]string{"KillMode": "mixed", "KillSignal": "SIGTERM", "Restart": "on-failure", "Type": "simple"} {
				if service[key] != want {
					t.Errorf("%s=%q, want %q", key, service[key], want)
				}
			}
			if service["EnvironmentFile"] == "" {
				t.Error("no EnvironmentFile: the master key and credentials belong in one, not in ExecStart")
			}
			args := strings.Fields(service["ExecStart"])
			if len(args) < 2 || filepath.Base(args[0]) != "clipperd" || args[1] != command {
				t.Fatalf("ExecStart %q, want clipperd %s ...", service["ExecStart"], command)
			}
			t.Setenv(apiKeyEnv, "") // as in the unit: no development key
			parse := map[string]func([]string, io.Writer) (*server.Config, error){"serve": parseServe, "worker": parseWorker}[command]
			cfg, err := parse(args[2:], io.Discard)
			if err != nil {
				t.Fatalf("clipperd %s refuses the unit's ExecStart: %v", command, err)
			}
			stop, err := time.ParseDuration(service["TimeoutStopSec"])
			if err != nil {
				t.Fatalf("TimeoutStopSec=%q: %v", service["TimeoutStopSec"], err)
			}
			if stop < 2*cfg.ShutdownGrace {
				t.Errorf("TimeoutStopSec=%s, want at least twice --shutdown-grace (%s): a stop takes the grace period and then hands back", stop, cfg.ShutdownGrace)
			}
		})
	}
	verifyWithSystemd(t, units)
}

// verifyWithSystemd runs `systemd-analyze verify` over the units, when it
// is installed, with ExecStart's clipperd replaced by an executable that
// exists here (verify checks it is there, and never runs it).
func verifyWithSystemd(t *testing.T, units map[string]string) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Logf("systemd-analyze is not installed; the units' flags were checked by clipperd's parser only")
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name := range units {
		text, err := os.ReadFile(filepath.Join(unitsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		copied := strings.ReplaceAll(string(text), "/usr/local/bin/clipperd", self)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(copied), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), analyze, "verify", path).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("systemd-analyze verify %s: %v\n%s", name, err, out)
		}
	}
}

// readUnit reads a systemd unit file's sections into key=value maps, a
// line ending in a backslash continued by the next.
func readUnit(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sections := map[string]map[string]string{}
	var section, pending string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if pending != "" {
			line, pending = pending+" "+line, ""
		}
		if rest, ok := strings.CutSuffix(line, `\`); ok {
			pending = rest
			continue
		}
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			sections[section] = map[string]string{}
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s: %q is not key=value in a section", path, line)
			}
			sections[section][strings.TrimSpace(key)] = strings.TrimSpace(value)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sections
}
