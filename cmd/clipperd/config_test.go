package main

import (
	"os"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
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
// server found (the default key file of the tests' configuration
// directory, or an older installation's key file in dir).
func openData(t *testing.T, dir string) *store.Store {
	t.Helper()
	key, _, err := masterkey.Resolve("", "", dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), dir, store.WithMasterKey(key))
	if err != nil {
		t.Fatal(err)
	}
	return st
}
