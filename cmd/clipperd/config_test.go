package main

import (
	"os"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/datadirtest"
)

// TestMain points the user's configuration directory, where clipperd keeps
// the master key file when it is given none, at a temporary one for the
// tests and the processes they start: no test writes the real ~/.config.
func TestMain(m *testing.M) {
	cfg, err := os.MkdirTemp("", "clipperd-config-")
	if err != nil {
		panic(err)
	}
	_ = os.Setenv("XDG_CONFIG_HOME", cfg)
	code := m.Run()
	_ = os.RemoveAll(cfg)
	os.Exit(code)
}

// openData opens the store of a data directory with the master key its
// server found.
func openData(t *testing.T, dir string) *store.Store { return datadirtest.Open(t, dir) }
