package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// AuditEntry is one row of the audit table: who did what, on which
// project. One row per action (a batch of 100,000 jobs is one row).
type AuditEntry struct {
	ID        int64
	At        time.Time
	Actor     string
	ProjectID *int64
	Action    string // "batch.create", "job.cancel", "token.create", …
	Target    string // the id acted on
	Detail    json.RawMessage
}

// AddAudit stores an audit row.
func (s *Store) AddAudit(ctx context.Context, e AuditEntry) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO audit (actor, project_id, action, target, detail) VALUES ($1, $2, $3, $4, $5)`,
		e.Actor, e.ProjectID, e.Action, e.Target, nullJSON(e.Detail)); err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	return nil
}

// AuditFilter selects audit rows: of projects (nil: all, with the rows of
// no project), newest first, after the cursor.
type AuditFilter struct {
	Projects []int64
	After    *Position
	Limit    int
}

// ListAudit calls fn for each audit row the filter selects, newest first.
func (s *Store) ListAudit(ctx context.Context, f AuditFilter, fn func(AuditEntry) error) error {
	var w where
	if f.Projects != nil {
		w.add("a.project_id = ANY (?)", f.Projects)
	}
	if f.After != nil {
		w.add("(a.at, a.id) < (?, ?)", f.After.At, f.After.ID)
	}
	rows, err := s.pool.Query(ctx, `SELECT a.id, a.at, a.actor, a.project_id, a.action, a.target, a.detail FROM audit a
		`+w.sql()+` ORDER BY a.at DESC, a.id DESC LIMIT `+strconv.Itoa(limitOf(f.Limit)), w.args...)
	if err != nil {
		return fmt.Errorf("store: list audit: %w", err)
	}
	return eachRow(rows, "list audit", func(row pgx.Rows) error {
		var e AuditEntry
		if err := row.Scan(&e.ID, &e.At, &e.Actor, &e.ProjectID, &e.Action, &e.Target, &e.Detail); err != nil {
			return err
		}
		return fn(e)
	})
}
