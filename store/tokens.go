package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Token is a stored API token (its hash, never the token itself).
type Token struct {
	ID       int64
	Name     string
	ReadOnly bool
	// Scoped says the token has a role on its projects only (Roles);
	// otherwise it is an operator's: every project, read only if ReadOnly.
	Scoped    bool
	Roles     map[int64]string // project id → "read", "submit" or "admin"
	CreatedBy string
	CreatedAt time.Time
	RevokedAt *time.Time
}

// TokenParams are the arguments of CreateToken.
type TokenParams struct {
	Name     string
	Hash     []byte
	ReadOnly bool
	// Roles, when not empty, make a scoped token with these roles.
	Roles     map[int64]string
	CreatedBy string
}

// CreateToken stores the SHA-256 hash of a new token and its roles.
func (s *Store) CreateToken(ctx context.Context, p TokenParams) (Token, error) {
	t := Token{Name: p.Name, ReadOnly: p.ReadOnly, Scoped: len(p.Roles) > 0, Roles: p.Roles, CreatedBy: p.CreatedBy}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO api_tokens (name, hash, read_only, scoped, created_by)
			VALUES ($1, $2, $3, $4, nullif($5, '')) RETURNING id, created_at`,
			p.Name, p.Hash, p.ReadOnly, t.Scoped, p.CreatedBy).Scan(&t.ID, &t.CreatedAt); err != nil {
			return err
		}
		for project, role := range p.Roles {
			if _, err := tx.Exec(ctx, `INSERT INTO token_projects (token_id, project_id, role) VALUES ($1, $2, $3)`,
				t.ID, project, role); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Token{}, fmt.Errorf("store: create token: %w", err)
	}
	return t, nil
}

const tokenColumns = `t.id, t.name, t.read_only, t.scoped, coalesce(t.created_by, ''), t.created_at, t.revoked_at,
	coalesce((SELECT jsonb_object_agg(tp.project_id::text, tp.role) FROM token_projects tp WHERE tp.token_id = t.id), '{}')`

func scanToken(row pgx.Row) (Token, error) {
	var t Token
	var roles map[string]string
	if err := row.Scan(&t.ID, &t.Name, &t.ReadOnly, &t.Scoped, &t.CreatedBy, &t.CreatedAt, &t.RevokedAt, &roles); err != nil {
		return Token{}, err
	}
	t.Roles = map[int64]string{}
	for k, v := range roles {
		var id int64
		if _, err := fmt.Sscan(k, &id); err != nil {
			return Token{}, err
		}
		t.Roles[id] = v
	}
	return t, nil
}

// TokenByHash returns the live (not revoked) token with the given hash,
// or ErrNotFound.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens t
		WHERE t.hash = $1 AND t.revoked_at IS NULL`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return Token{}, ErrNotFound
	}
	if err != nil {
		return Token{}, fmt.Errorf("store: token: %w", err)
	}
	return t, nil
}

// Tokens lists the stored tokens, revoked ones too, by id: all of them
// when projects is nil, else the scoped tokens having a role on one of
// projects.
func (s *Store) Tokens(ctx context.Context, projects []int64) ([]Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+tokenColumns+` FROM api_tokens t
		WHERE $1::bigint[] IS NULL OR (t.scoped AND EXISTS (
			SELECT 1 FROM token_projects tp WHERE tp.token_id = t.id AND tp.project_id = ANY ($1)))
		ORDER BY t.id`, projects)
	if err != nil {
		return nil, fmt.Errorf("store: tokens: %w", err)
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("store: tokens: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: tokens: %w", err)
	}
	return out, nil
}

// TokenByID returns a stored token, revoked or not, or ErrNotFound.
func (s *Store) TokenByID(ctx context.Context, id int64) (Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens t WHERE t.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Token{}, fmt.Errorf("token %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Token{}, fmt.Errorf("store: token: %w", err)
	}
	return t, nil
}

// RevokedTokenKey is the notification that a token was revoked: every API
// process drops its cache of validated tokens.
const RevokedTokenKey = "t"

// RevokeToken marks a token revoked (once; revoking again keeps the
// first time) and returns it. The notification goes in the same
// transaction, so it is sent only if the revoke commits, and after it.
func (s *Store) RevokeToken(ctx context.Context, id int64) (Token, error) {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1`, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, finalChannel, RevokedTokenKey)
		return err
	})
	if err != nil {
		return Token{}, fmt.Errorf("store: revoke token: %w", err)
	}
	return s.TokenByID(ctx, id)
}

// HasTokens reports whether any token is stored (revoked ones count: auth
// stays on once it was turned on).
func (s *Store) HasTokens(ctx context.Context) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_tokens)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("store: has tokens: %w", err)
	}
	return ok, nil
}
