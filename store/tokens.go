package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Token is a stored API token (its hash, never the token itself).
type Token struct {
	ID       int64
	Name     string
	ReadOnly bool
}

// CreateToken stores the SHA-256 hash of a new token.
func (s *Store) CreateToken(ctx context.Context, name string, hash []byte, readOnly bool) (Token, error) {
	t := Token{Name: name, ReadOnly: readOnly}
	err := s.pool.QueryRow(ctx, `INSERT INTO api_tokens (name, hash, read_only) VALUES ($1, $2, $3) RETURNING id`,
		name, hash, readOnly).Scan(&t.ID)
	if err != nil {
		return Token{}, fmt.Errorf("store: create token: %w", err)
	}
	return t, nil
}

// TokenByHash returns the token with the given hash, or ErrNotFound.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (Token, error) {
	var t Token
	err := s.pool.QueryRow(ctx, `SELECT id, name, read_only FROM api_tokens WHERE hash = $1`, hash).
		Scan(&t.ID, &t.Name, &t.ReadOnly)
	if errors.Is(err, pgx.ErrNoRows) {
		return Token{}, ErrNotFound
	}
	if err != nil {
		return Token{}, fmt.Errorf("store: token: %w", err)
	}
	return t, nil
}

// HasTokens reports whether any token is stored.
func (s *Store) HasTokens(ctx context.Context) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_tokens)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("store: has tokens: %w", err)
	}
	return ok, nil
}
