package store

import (
	"context"
	"fmt"
)

// MediaSum is a stored media object's size and SHA-256 (hex) when it was
// made, by its blob key.
type MediaSum struct {
	Size   int64
	SHA256 string
}

// RecordMediaSum records the sum of the object key, replacing an earlier
// one (a render made again, a clip censored).
func (s *Store) RecordMediaSum(ctx context.Context, key string, sum MediaSum) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO media_sums(key, size, sha256) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256`, key, sum.Size, sum.SHA256)
	if err != nil {
		return fmt.Errorf("record the checksum of %s: %w", key, err)
	}
	return nil
}

// MediaSumOf is the recorded sum of the object key; ErrNotFound for an
// object made before sums were recorded, which is served unchecked.
func (s *Store) MediaSumOf(ctx context.Context, key string) (MediaSum, error) {
	sum, err := queryOne(ctx, s.db, func(row scanner) (MediaSum, error) {
		var m MediaSum
		return m, row.Scan(&m.Size, &m.SHA256)
	}, `SELECT size, sha256 FROM media_sums WHERE key = ?`, key)
	if err != nil {
		return sum, fmt.Errorf("checksum of %s: %w", key, err)
	}
	return sum, nil
}

// DeleteMediaSums forgets the sums of the objects under prefix (a
// project's media, deleted).
func (s *Store) DeleteMediaSums(ctx context.Context, prefix string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM media_sums WHERE SUBSTR(key, 1, ?) = ?`, len(prefix), prefix); err != nil {
		return fmt.Errorf("forget the checksums under %s: %w", prefix, err)
	}
	return nil
}
