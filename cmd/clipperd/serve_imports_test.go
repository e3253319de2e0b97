package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
)

// The import limits and the organization's share of the workers are flags
// of both working commands, checked before anything starts.
func TestImportAndShareFlags(t *testing.T) {
	for _, cmd := range []string{"serve", "worker"} {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--import-timeout", "0s"}, "--import-timeout must be at least 1s"},
			{[]string{"--import-min-rate", "fast"}, "--import-min-rate"},
			{[]string{"--org-workers", "-1"}, "--org-workers must be 0"},
			{[]string{"--import-workers", "0"}, "--import-workers must be at least 1"},
		} {
			var out, errOut bytes.Buffer
			args := append([]string{cmd, "--data", t.TempDir(), "--public-url", "http://127.0.0.1:1"}, tc.args...)
			if err := run(t.Context(), args, &out, &errOut); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run %q: error %v, want a usage error naming %q", args, err, tc.want)
			}
		}
	}

	for _, tc := range []struct {
		args    []string
		minRate int64
	}{
		{nil, 64 << 10},
		{[]string{"--import-min-rate", "1MB"}, 1e6},
		{[]string{"--import-min-rate", "0"}, -1}, // no floor
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var cfg server.Config
		w := addWorkFlags(fs, &cfg, "")
		if err := fs.Parse(append(tc.args, "--org-workers", "4")); err != nil {
			t.Fatal(err)
		}
		if err := w.check(fs, &cfg); err != nil || cfg.ImportMinRate != tc.minRate || cfg.OrgWorkers != 4 || cfg.ImportTimeout.Hours() != 2 {
			t.Errorf("%q: min rate %d, org workers %d, timeout %s (%v); want min rate %d, 4, 2h", tc.args, cfg.ImportMinRate, cfg.OrgWorkers, cfg.ImportTimeout, err, tc.minRate)
		}
	}
}
