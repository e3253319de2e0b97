// Package masterkey holds the key that wraps clipperd's secrets at rest
// (the media signing secret, the sealed copies of API keys that sign
// webhooks) with AES-256-GCM. It is kept out of the database, so a copy of
// the database alone (a database backup, a PostgreSQL dump) opens none of
// them: it comes from CLIPPERD_MASTER_KEY, or from a key file (by default
// clipperd/master.key in the user's configuration directory, made at first
// start with mode 0600). The default is outside the data directory so that
// a copy of that directory (cp, tar, `clipperd backup`) opens nothing; an
// older installation's DATA/master.key is still used, with a warning.
package masterkey

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	// Env names the environment variable that gives the master key
	// (base64 or hex of 32 bytes); it wins over any key file.
	Env = "CLIPPERD_MASTER_KEY"
	// DefaultFile is the key file's name: in DefaultDir, and in the data
	// directory of an installation made before the key moved out of it.
	DefaultFile = "master.key"
	// DefaultDir is the key file's directory in the user's configuration
	// directory (os.UserConfigDir).
	DefaultDir = "clipperd"
	// Size is the key's length in bytes (AES-256).
	Size = 32
)

// version leads every sealed value, so a later format can be told apart.
const version = 1

// ErrWrongKey is returned when a sealed value does not open with the key:
// it was sealed with another master key, or damaged.
var ErrWrongKey = errors.New("sealed with another master key, or damaged")

// Key seals and opens secrets. Safe for concurrent use.
type Key struct {
	aead cipher.AEAD
}

// New makes a Key of raw, which must be Size bytes.
func New(raw []byte) (*Key, error) {
	if len(raw) != Size {
		return nil, fmt.Errorf("master key: %d bytes, want %d", len(raw), Size)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	return &Key{aead: aead}, nil
}

// Generate makes a new random Key and returns it with its text form.
func Generate() (*Key, string) {
	raw := make([]byte, Size)
	if _, err := rand.Read(raw); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	k, _ := New(raw) // Size bytes: cannot fail
	return k, base64.StdEncoding.EncodeToString(raw)
}

// Parse reads a key's text form: base64 (standard or URL, padded or not)
// or hex of Size bytes, surrounding space ignored.
func Parse(text string) (*Key, error) {
	text = strings.TrimSpace(text)
	for _, dec := range []func(string) ([]byte, error){
		hex.DecodeString,
		base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString,
	} {
		if raw, err := dec(text); err == nil && len(raw) == Size {
			return New(raw)
		}
	}
	return nil, fmt.Errorf("master key: want %d bytes as base64 or hex (make one with `openssl rand -base64 32`)", Size)
}

// Load reads the key file at path, making it (mode 0600, in a directory
// made 0700) with a new random key when there is none. Two processes that
// start at once on one path end with the same key: the file is created
// exclusively, and the loser reads the winner's.
func Load(path string) (*Key, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("master key file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, text := Generate()
		_, werr := f.WriteString(text + "\n")
		if serr := f.Sync(); werr == nil {
			werr = serr
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = os.Remove(path)
			return nil, fmt.Errorf("master key file %s: %w", path, werr)
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("master key file: %w", err)
	}
	// An existing file keeps its key; only its mode is tightened.
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("master key file: %w", err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("master key file: %w", err)
	}
	k, err := Parse(string(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// ResolveFor is ResolveShared when the database is shared by processes
// (shared), else Resolve.
func ResolveFor(shared bool, env, file, dataDir string) (*Key, string, error) {
	if shared {
		return ResolveShared(env, file)
	}
	return Resolve(env, file, dataDir)
}

// ResolveShared is Resolve for a database that processes share
// (PostgreSQL): the key must be given (env or file), because a key file
// made on each machine would differ from the others', and no process could
// open the secrets another sealed.
func ResolveShared(env, file string) (*Key, string, error) {
	if strings.TrimSpace(env) == "" && file == "" {
		return nil, "", fmt.Errorf("the database is shared by processes (PostgreSQL), so every process needs the same master key: "+
			"set %s or --master-key-file (32 random bytes in base64, e.g. `openssl rand -base64 32`); "+
			"a key made on each machine would differ between processes", Env)
	}
	return Resolve(env, file, "")
}

// Resolve finds the master key of a server: the text of CLIPPERD_MASTER_KEY
// (env) when set, else the key file file when set, else the data
// directory's DefaultFile when an older installation made one there, else
// DefaultPath (made at first use). It says which it used (Env or a path).
func Resolve(env, file, dataDir string) (*Key, string, error) {
	from, err := Locate(env, file, dataDir)
	if err != nil {
		return nil, "", err
	}
	if from == Env {
		k, err := Parse(env)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", Env, err)
		}
		return k, Env, nil
	}
	k, err := Load(from)
	return k, from, err
}

// Locate says where Resolve takes the key from (Env or a key file's path),
// without reading or making anything.
func Locate(env, file, dataDir string) (string, error) {
	switch {
	case strings.TrimSpace(env) != "":
		return Env, nil
	case file != "":
		return file, nil
	}
	if InDataDir(dataDir) {
		return filepath.Join(dataDir, DefaultFile), nil
	}
	return DefaultPath()
}

// InDataDir says whether the data directory holds its own key file, as
// installations made before the default moved out of it do: a copy of the
// directory then opens its secrets.
func InDataDir(dataDir string) bool {
	if dataDir == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dataDir, DefaultFile))
	return err == nil && fi.Mode().IsRegular()
}

// DefaultPath is the key file of an installation that names none:
// DefaultDir/DefaultFile in the user's configuration directory
// ($XDG_CONFIG_HOME or ~/.config on Linux).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil || dir == "" {
		return "", fmt.Errorf("master key: no configuration directory to keep the key file in (%v): "+
			"give one with --master-key-file FILE or the key itself in %s (32 random bytes in base64, e.g. `openssl rand -base64 32`)", err, Env)
	}
	return filepath.Join(dir, DefaultDir, DefaultFile), nil
}

// MoveHint tells how to move a key file out of the data directory dataDir.
func MoveHint(dataDir string) string {
	in := filepath.Join(dataDir, DefaultFile)
	if to, err := DefaultPath(); err == nil {
		if _, err := os.Stat(to); errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("stop clipperd, then `mkdir -p -m 700 %s && mv %s %s` (the default place, found without a flag)",
				filepath.Dir(to), in, to)
		}
	}
	return fmt.Sprintf("stop clipperd, then `mv %s KEYFILE` (KEYFILE outside the data directory, mode 0600) "+
		"and start every command with --master-key-file KEYFILE", in)
}

// Seal encrypts plain for purpose (a label bound into the seal, so a value
// sealed for one use cannot be passed off as another's).
func (k *Key) Seal(purpose string, plain []byte) []byte {
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	out := append([]byte{version}, nonce...)
	return k.aead.Seal(out, nonce, plain, []byte(purpose))
}

// Open decrypts what Seal made for purpose; ErrWrongKey when it does not
// open with this key.
func (k *Key) Open(purpose string, sealed []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < 1+n+k.aead.Overhead() || sealed[0] != version {
		return nil, ErrWrongKey
	}
	plain, err := k.aead.Open(nil, sealed[1:1+n], sealed[1+n:], []byte(purpose))
	if err != nil {
		return nil, ErrWrongKey
	}
	return plain, nil
}
