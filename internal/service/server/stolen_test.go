package server

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// staticKey is a medialink.KeySource of given bytes: what someone holding
// a copy of the database would sign with.
type staticKey []byte

func (k staticKey) MediaKey(context.Context) ([]byte, error) { return k, nil }

// TestStolenBackupYieldsNothingUsable: a read-only copy of the data
// directory, with the master key kept apart (--master-key-file outside it,
// or CLIPPERD_MASTER_KEY), holds no working API key and cannot forge a
// signed media link; the server's own link works. Its files are 0600 and
// its directories 0700.
func TestStolenBackupYieldsNothingUsable(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	data, keyFile := filepath.Join(root, "data"), filepath.Join(root, "secrets", "master.key")
	const apiKey = "ck_stolen_backup_test_0123456789abcdef0123456789"
	srv, err := Start(ctx, Config{DataDir: data, Listen: "127.0.0.1:0", APIKey: apiKey, MasterKeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	media := filepath.Join(data, "media", "prj_stolen")
	if err := os.MkdirAll(media, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(media, "c01.mp4"), []byte("clip bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The server's own link, signed with the key it unseals.
	master, err := masterkey.Load(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	live, err := store.Open(ctx, filepath.Join(data, store.DefaultFile), store.WithMasterKey(master))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	good, err := medialink.New(live, srv.URL(), 0, 0, nil).Sign(ctx, medialink.Path("prj_stolen", "c01.mp4"), false)
	if err != nil {
		t.Fatal(err)
	}
	if code := status(t, good, ""); code != http.StatusOK {
		t.Fatalf("the server's own link: %d, want 200", code)
	}
	if code := status(t, srv.URL()+"/api/collections?q=mine", apiKey); code != http.StatusOK {
		t.Fatalf("the API key: %d, want 200", code)
	}

	for path, want := range map[string]os.FileMode{
		data: 0o700, filepath.Join(data, store.DefaultFile): 0o600, filepath.Join(data, store.DefaultFile+"-wal"): 0o600,
		filepath.Join(data, "media"): 0o700, keyFile: 0o600,
	} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}

	// The backup: a copy of the data directory as it is (WAL included).
	stolen := filepath.Join(root, "stolen")
	if out, err := exec.Command("cp", "-a", data, stolen).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(stolen, store.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(filepath.Join(stolen, store.DefaultFile+"-wal"))
	if strings.Contains(string(raw)+string(wal), apiKey) {
		t.Error("the copied database holds the API key in the clear")
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(stolen, store.DefaultFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Every text of the key table tried as a key.
	var hash, prefix string
	var sealed, secret []byte
	if err := db.QueryRow(`SELECT key_hash, prefix, sealed FROM api_keys`).Scan(&hash, &prefix, &sealed); err != nil {
		t.Fatal(err)
	}
	for _, guess := range []string{hash, prefix, hex.EncodeToString(sealed)} {
		if code := status(t, srv.URL()+"/api/collections?q=mine", guess); code != http.StatusUnauthorized {
			t.Errorf("the stored value %.12q... as a key: %d, want 401", guess, code)
		}
	}
	// The stored media secret as the signing key: a forged link.
	if err := db.QueryRow(`SELECT secret FROM media_keys WHERE id = 1`).Scan(&secret); err != nil {
		t.Fatal(err)
	}
	forged, err := medialink.New(staticKey(secret), srv.URL(), 0, 0, nil).Sign(ctx, medialink.Path("prj_stolen", "c01.mp4"), false)
	if err != nil {
		t.Fatal(err)
	}
	if code := status(t, forged, ""); code != http.StatusForbidden {
		t.Errorf("a link signed with the stored secret: %d, want 403", code)
	}
	// Nor does the copy open as a store without the master key.
	if _, err := store.Open(ctx, stolen); !errors.Is(err, masterkey.ErrWrongKey) {
		t.Errorf("opening the copy without the master key: %v, want ErrWrongKey", err)
	}
}

// status GETs url, with bearer as the API key when set, and returns the
// status code.
func status(t *testing.T, url, bearer string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}
