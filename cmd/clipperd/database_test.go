package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/server"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store/storetest"
)

// TestKeysCreateOnPostgres: `keys create --database URL` writes the key
// into the PostgreSQL database a server started with that database
// answers from, and the data directory holds no SQLite file.
func TestKeysCreateOnPostgres(t *testing.T) {
	db := storetest.PostgresURL(t)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"keys", "create", "--data", dir, "--database", db, "--org", "org-pg", "--user", "u"}, &out, &errOut); err != nil {
		t.Fatalf("keys create: %v (stderr %s)", err, errOut.String())
	}
	words := strings.Fields(out.String())
	key := words[len(words)-1]
	srv, err := server.Start(t.Context(), server.Config{Listen: "127.0.0.1:0", DataDir: dir, Database: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL()+"/api/social-accounts?q=mine", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/social-accounts with the key made on PostgreSQL: %s %s", resp.Status, body)
	}
	st, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.LookupKey(t.Context(), key); err == nil {
		t.Error("the key is in DATA/clipperd.db too; want it in PostgreSQL only")
	}
}
