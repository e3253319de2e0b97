package main

import (
	"bytes"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// TestServeAndKeysOnPostgres: `keys create --database URL` writes the key
// into PostgreSQL, `serve --database URL` answers with it, and the data
// directory holds no SQLite state.
func TestServeAndKeysOnPostgres(t *testing.T) {
	db := storetest.PostgresURL(t)
	dir := t.TempDir()
	_, master := masterkey.Generate()
	t.Setenv(masterkey.Env, master) // processes sharing a database are given one
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"keys", "create", "--data", dir, "--database", db, "--org", "org-pg", "--user", "u"}, &out, &errOut); err != nil {
		t.Fatalf("keys create: %v (stderr %s)", err, errOut.String())
	}
	words := strings.Fields(out.String())
	key := words[len(words)-1]
	log := serveInProcess(t, "--data", dir, "--database", db)
	if status := apiStatus(t, "http://"+listenedAt(log.String(), "clipperd listening"), key); status != http.StatusOK {
		t.Errorf("a request with the key made on PostgreSQL: %d, want 200", status)
	}
	if _, err := os.Stat(filepath.Join(dir, store.DefaultFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s in the data directory: %v; want the state in PostgreSQL only", store.DefaultFile, err)
	}
}
