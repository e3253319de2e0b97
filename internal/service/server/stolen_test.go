package server

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/backup"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/medialink"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// staticKey is a medialink.KeySource of given bytes: what someone holding
// a copy of the database would sign with.
type staticKey []byte

func (k staticKey) MediaKey(context.Context) ([]byte, error) { return k, nil }

// TestStolenBackupYieldsNothingUsable: a server started with no master key
// given keeps its key file outside the data directory, so neither a
// read-only copy of the directory (cp -a) nor a `clipperd backup` of it
// holds a working API key or can forge a signed media link, and neither
// opens on another machine; the server's own link works. Its files are
// 0600 and its directories 0700.
func TestStolenBackupYieldsNothingUsable(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	config := filepath.Join(root, "config") // the owner's ~/.config
	t.Setenv("XDG_CONFIG_HOME", config)
	data := filepath.Join(root, "data")
	const apiKey = "ck_stolen_backup_test_0123456789abcdef0123456789"
	srv, err := Start(ctx, Config{DataDir: data, Listen: "127.0.0.1:0", APIKey: apiKey})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	keyFile := filepath.Join(config, masterkey.DefaultDir, masterkey.DefaultFile)
	if _, err := os.Stat(filepath.Join(data, masterkey.DefaultFile)); !os.IsNotExist(err) {
		t.Fatalf("a fresh server made a key file in its data directory: %v", err)
	}
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
		filepath.Join(data, "media"): 0o700, keyFile: 0o600, filepath.Dir(keyFile): 0o700,
	} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}

	// The stolen copies: the data directory as it is (WAL included), and
	// what `clipperd backup` writes.
	copied, backedUp := filepath.Join(root, "copied"), filepath.Join(root, "backup")
	if out, err := exec.Command("cp", "-a", data, copied).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	if _, err := backup.Backup(ctx, data, filepath.Join(data, store.DefaultFile), backedUp); err != nil {
		t.Fatal(err)
	}
	for _, stolen := range []string{copied, backedUp} {
		t.Run(filepath.Base(stolen), func(t *testing.T) {
			if err := filepath.WalkDir(stolen, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && d.Name() == masterkey.DefaultFile {
					t.Errorf("the copy holds a key file: %s", path)
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			triesNothingWorks(t, srv, stolen, apiKey)
			// On the thief's machine (another configuration directory) the
			// copy does not open: the key it was sealed with is not there.
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "thief-"+filepath.Base(stolen)))
			_, err := Start(ctx, Config{DataDir: stolen, Listen: "127.0.0.1:0"})
			if !errors.Is(err, masterkey.ErrWrongKey) || !strings.Contains(err.Error(), "--master-key-file") {
				t.Errorf("serving the copy without its master key: %v; want a refusal (ErrWrongKey) naming --master-key-file", err)
			}
			if stolen != backedUp {
				return
			}
			if _, err := backup.Restore(ctx, stolen, filepath.Join(root, "restored"), nil); !errors.Is(err, backup.ErrNoMasterKey) {
				t.Errorf("restoring the backup without its master key: %v, want ErrNoMasterKey", err)
			}
			guess, _ := masterkey.Generate()
			if _, err := backup.Restore(ctx, stolen, filepath.Join(root, "restored"), guess); !errors.Is(err, masterkey.ErrWrongKey) {
				t.Errorf("restoring the backup with another master key: %v, want ErrWrongKey", err)
			}
		})
	}
}

// triesNothingWorks reads the copied database in stolen and tries every
// stored value of the key table as an API key (each must get 401), and the
// stored media secret as the signing key of a link (403).
func triesNothingWorks(t *testing.T, srv *Server, stolen, apiKey string) {
	t.Helper()
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
	if err := db.QueryRow(`SELECT secret FROM media_keys WHERE id = 1`).Scan(&secret); err != nil {
		t.Fatal(err)
	}
	forged, err := medialink.New(staticKey(secret), srv.URL(), 0, 0, nil).Sign(context.Background(), medialink.Path("prj_stolen", "c01.mp4"), false)
	if err != nil {
		t.Fatal(err)
	}
	if code := status(t, forged, ""); code != http.StatusForbidden {
		t.Errorf("a link signed with the stored secret: %d, want 403", code)
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

// TestOlderInstallationsKeyFileStillOpensAndWarns: a data directory that
// holds the key file an older clipperd made there keeps its secrets (the
// API key works), no second key file is made, and the start warns once
// that a copy of the directory opens them, with how to move the key.
func TestOlderInstallationsKeyFileStillOpensAndWarns(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	data := t.TempDir()
	old := filepath.Join(data, masterkey.DefaultFile)
	// What an older clipperd left: a key file in the data directory and a
	// database sealed with it.
	first := startServer(t, Config{DataDir: data, MasterKeyFile: old})
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	srv := startServer(t, Config{DataDir: data, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if code := status(t, srv.URL()+"/api/collections?q=mine", devKey); code != http.StatusOK {
		t.Fatalf("the API key of the older installation: %d, want 200", code)
	}
	if _, err := os.Stat(filepath.Join(config, masterkey.DefaultDir, masterkey.DefaultFile)); !os.IsNotExist(err) {
		t.Errorf("a second key file was made in the configuration directory: %v", err)
	}
	warnings := 0
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=WARN") && strings.Contains(line, "master key file is inside the data directory") {
			warnings++
			if !strings.Contains(line, "mv "+old) {
				t.Errorf("the warning does not say how to move the key: %s", line)
			}
		}
	}
	if warnings != 1 {
		t.Errorf("%d warnings about the key file in the data directory, want 1:\n%s", warnings, logs.String())
	}
}
