package store

import (
	"context"
	"database/sql"
	"fmt"
)

// TranscriptWord is one recognised word of a project's transcript; times are
// milliseconds of the source.
type TranscriptWord struct {
	Word           string
	StartMs, EndMs int64
	Confidence     float64
}

// ReplaceTranscript stores words as the project's transcript, replacing any
// earlier run's; no words leaves the project without one.
func (s *Store) ReplaceTranscript(ctx context.Context, projectID string, words []TranscriptWord) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM transcript_words WHERE project_id = ?`, projectID); err != nil {
			return fmt.Errorf("clear transcript: %w", err)
		}
		for i, w := range words {
			if _, err := tx.ExecContext(ctx, `INSERT INTO transcript_words(project_id, seq, word, start_ms, end_ms, confidence) VALUES (?, ?, ?, ?, ?, ?)`,
				projectID, i, w.Word, w.StartMs, w.EndMs, w.Confidence); err != nil {
				return fmt.Errorf("save transcript word %d: %w", i, err)
			}
		}
		return nil
	})
}

// Transcript returns the project's words in spoken order (none: empty).
func (s *Store) Transcript(ctx context.Context, projectID string) ([]TranscriptWord, error) {
	return queryAll(ctx, s.db, scanTranscriptWord,
		`SELECT word, start_ms, end_ms, confidence FROM transcript_words WHERE project_id = ? ORDER BY seq`, projectID)
}

func scanTranscriptWord(r scanner) (TranscriptWord, error) {
	var w TranscriptWord
	err := r.Scan(&w.Word, &w.StartMs, &w.EndMs, &w.Confidence)
	return w, err
}
