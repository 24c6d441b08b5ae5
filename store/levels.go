package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Level is a parsed level as stored: its canonical JSON and the SHA-256 of it.
type Level struct {
	Hash string
	Kind string
	Body json.RawMessage
	// Labels are the job's own labels when the level is one of a batch's
	// (BatchParams): added to the batch's labels, a key of both taking the
	// job's value. Not part of the level: its hash ignores them.
	Labels json.RawMessage
}

// LevelResult is a stored level and its newest definitive result, if any.
type LevelResult struct {
	Level
	Result *Result
}

// GetLevel returns the level with the given hash and its newest definitive
// (solved or unsolvable) result among the jobs of projects (nil: of any
// job).
func (s *Store) GetLevel(ctx context.Context, hash string, projects []int64) (LevelResult, error) {
	var lr LevelResult
	var res resultRow
	err := s.pool.QueryRow(ctx, `
		SELECT l.hash, l.kind, l.body, `+resultColumns("r")+`
		FROM levels l
		LEFT JOIN LATERAL (`+projectResult("l.hash", "$2")+`) r ON true
		WHERE l.hash = $1`, hash, projects).
		Scan(append([]any{&lr.Hash, &lr.Kind, &lr.Body}, res.dest()...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return LevelResult{}, fmt.Errorf("level %s: %w", hash, ErrNotFound)
	}
	if err != nil {
		return LevelResult{}, fmt.Errorf("store: get level: %w", err)
	}
	lr.Result = res.result()
	return lr, nil
}
