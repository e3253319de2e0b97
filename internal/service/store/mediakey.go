package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
)

// mediaKeyBytes is the size of the media signing key (HMAC-SHA256's block
// is larger; 32 random bytes are its full strength).
const mediaKeyBytes = 32

// purposeMediaKey is the label the sealed media key is bound to.
const purposeMediaKey = "clipperd media key"

// MediaKey returns the key that signs media addresses, making it at first
// use, so that links survive restarts. It is kept sealed with the master
// key: the database alone cannot forge a link.
func (s *Store) MediaKey(ctx context.Context) ([]byte, error) {
	sealed, err := s.sealedMediaKey(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		// Two first uses at once: the first insert wins, both read it back.
		if _, err := s.db.ExecContext(ctx, `INSERT INTO media_keys(id, secret, created_at) VALUES (1, ?, ?) ON CONFLICT(id) DO NOTHING`,
			s.master.Seal(purposeMediaKey, newMediaKey()), Timestamp(s.Now())); err != nil {
			return nil, fmt.Errorf("create media key: %w", err)
		}
		sealed, err = s.sealedMediaKey(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("read media key: %w", err)
	}
	key, err := s.master.Open(purposeMediaKey, sealed)
	if err != nil {
		return nil, fmt.Errorf("read media key: %w", err)
	}
	return key, nil
}

func (s *Store) sealedMediaKey(ctx context.Context) ([]byte, error) {
	var sealed []byte
	err := s.db.QueryRowContext(ctx, `SELECT secret FROM media_keys WHERE id = 1`).Scan(&sealed)
	return sealed, err
}

// RotateMediaKey replaces the media signing key: every media address
// handed out so far stops working, and the next reads hand out new ones.
func (s *Store) RotateMediaKey(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO media_keys(id, secret, created_at) VALUES (1, ?, ?)
		 ON CONFLICT(id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
		s.master.Seal(purposeMediaKey, newMediaKey()), Timestamp(s.Now()))
	if err != nil {
		return fmt.Errorf("rotate media key: %w", err)
	}
	return nil
}

// checkMasterKey refuses a master key that does not open the store's
// secrets (another key file, a wrong CLIPPERD_MASTER_KEY) at open, rather
// than at the first signed link.
func (s *Store) checkMasterKey(ctx context.Context) error {
	sealed, err := s.sealedMediaKey(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read media key: %w", err)
	}
	if _, err := s.master.Open(purposeMediaKey, sealed); err != nil {
		return fmt.Errorf("the master key does not open this database's secrets (%w): "+
			"start with the key it was sealed with (--master-key-file or %s; a restored backup or a copied data directory "+
			"needs the key of the installation it came from, which neither holds)",
			err, masterkey.Env)
	}
	return nil
}

func newMediaKey() []byte {
	key := make([]byte, mediaKeyBytes)
	if _, err := rand.Read(key); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return key
}
