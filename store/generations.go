package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/solver"
)

// Generation modes and states (migrations/00030_generations.sql).
const (
	ModeGenerate = "generate"
	ModeRepair   = "repair"

	GenerationRunning   = "running"
	GenerationDone      = "done"      // as many levels kept as asked
	GenerationExhausted = "exhausted" // the candidates ran out first
	GenerationCanceled  = "canceled"
	GenerationFailed    = "failed"
)

// GenerationRequest is what a generation runs, stored as JSON.
type GenerationRequest struct {
	Count         int           `json:"count"`
	MinScore      int           `json:"min_score,omitempty"`
	MaxScore      int           `json:"max_score,omitempty"`
	Seed          uint64        `json:"seed"`
	MaxCandidates int           `json:"max_candidates"`
	Budget        solver.Budget `json:"budget"`   // of each candidate's solve
	Playouts      int           `json:"playouts"` // of each candidate's figures
	MaxEdits      int           `json:"max_edits,omitempty"`
}

// Generation is a stored generation with its progress.
type Generation struct {
	ID         int64
	BatchID    int64
	Mode       string
	Kind       string
	Template   string // the template level's hash
	Body       json.RawMessage
	SourceJob  *int64
	Request    GenerationRequest
	State      string
	Tried      int
	Kept       int
	Rejected   map[string]int
	Note       *string
	CreatedAt  time.Time
	FinishedAt *time.Time
	// BatchCanceled: the batch was canceled (POST /v1/batches/{id}/cancel).
	BatchCanceled bool
}

// GenerationParams are the arguments of CreateGeneration.
type GenerationParams struct {
	Mode      string
	Template  Level
	SourceJob *int64
	Request   GenerationRequest
	Labels    json.RawMessage // of the batch and its jobs
	Project   int64           // 0: DefaultProject
}

// CreateGeneration stores the template level, an empty batch of Count
// jobs to come (its progress is the generation's: kept of Count) and the
// generation, running.
func (s *Store) CreateGeneration(ctx context.Context, p GenerationParams) (Generation, error) {
	req, err := json.Marshal(p.Request)
	if err != nil {
		return Generation{}, fmt.Errorf("store: create generation: %w", err)
	}
	var id int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO levels (hash, kind, body) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`,
			p.Template.Hash, p.Template.Kind, string(p.Template.Body)); err != nil {
			return err
		}
		var batch int64
		if err := tx.QueryRow(ctx, `INSERT INTO batches (total, priority, labels, project_id) VALUES ($1, 'bulk', $2, $3) RETURNING id`,
			p.Request.Count, nullJSON(p.Labels), projectOr(p.Project)).Scan(&batch); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO generations (batch_id, mode, kind, template, source_job, request, project_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			batch, p.Mode, p.Template.Kind, p.Template.Hash, p.SourceJob, string(req), projectOr(p.Project)).Scan(&id)
	})
	if err != nil {
		return Generation{}, fmt.Errorf("store: create generation: %w", err)
	}
	return s.GetGeneration(ctx, id)
}

// GetGeneration returns a generation with its template's body.
func (s *Store) GetGeneration(ctx context.Context, id int64) (Generation, error) {
	var g Generation
	var req, rejected []byte
	err := s.pool.QueryRow(ctx, `
		SELECT g.id, g.batch_id, g.mode, g.kind, g.template, l.body, g.source_job, g.request, g.state,
			g.tried, g.kept, g.rejected, g.note, g.created_at, g.finished_at, b.canceled_at IS NOT NULL
		FROM generations g JOIN levels l ON l.hash = g.template JOIN batches b ON b.id = g.batch_id
		WHERE g.id = $1`, id).Scan(&g.ID, &g.BatchID, &g.Mode, &g.Kind, &g.Template, &g.Body, &g.SourceJob, &req,
		&g.State, &g.Tried, &g.Kept, &rejected, &g.Note, &g.CreatedAt, &g.FinishedAt, &g.BatchCanceled)
	if errors.Is(err, pgx.ErrNoRows) {
		return Generation{}, fmt.Errorf("generation %d: %w", id, ErrNotFound)
	}
	if err == nil {
		err = errors.Join(json.Unmarshal(req, &g.Request), json.Unmarshal(rejected, &g.Rejected))
	}
	if err != nil {
		return Generation{}, fmt.Errorf("store: get generation: %w", err)
	}
	return g, nil
}

// Candidate is the outcome of one candidate of a generation.
type Candidate struct {
	GenerationID int64
	Index        int    // must be the generation's tried: candidates are stored in order, once
	Reject       string // why it was not kept; "" when kept
	// Kept candidates only: the level, its verified result and the
	// solver version, stored as a done job of the batch (seq: kept so
	// far) with the labels.
	Level         Level
	Result        solver.Result
	SolverVersion string
	Labels        json.RawMessage
}

// RecordCandidate stores a candidate's outcome in one transaction: the
// generation's counts and, when kept, the level, a done job of the batch
// and its result. It reports false, storing nothing, when the generation
// is no longer running or the candidate was stored already (a retried
// task): the caller stops or moves on.
func (s *Store) RecordCandidate(ctx context.Context, c Candidate) (bool, error) {
	stored := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var batch int64
		var kept int
		err := tx.QueryRow(ctx, `SELECT batch_id, kept FROM generations
			WHERE id = $1 AND state = 'running' AND tried = $2 FOR UPDATE`, c.GenerationID, c.Index).Scan(&batch, &kept)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if c.Reject != "" {
			_, err = tx.Exec(ctx, `UPDATE generations SET tried = tried + 1,
				rejected = jsonb_set(rejected, ARRAY[$2::text], to_jsonb(coalesce((rejected ->> $2)::int, 0) + 1))
				WHERE id = $1`, c.GenerationID, c.Reject)
			stored = err == nil
			return err
		}
		if err := storeKept(ctx, tx, batch, kept, c); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE generations SET tried = tried + 1, kept = kept + 1 WHERE id = $1`, c.GenerationID); err != nil {
			return err
		}
		// The jobs_notify_final trigger fires on updates only: wake the
		// batch's waiters here.
		_, err = tx.Exec(ctx, `SELECT pg_notify('`+finalChannel+`', $1)`, BatchKey(batch))
		stored = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: record candidate %d of generation %d: %w", c.Index, c.GenerationID, err)
	}
	return stored, nil
}

// storeKept writes a kept candidate as job seq of the batch, done with
// its result.
func storeKept(ctx context.Context, tx pgx.Tx, batch int64, seq int, c Candidate) error {
	a, err := newResultArgs(c.Result)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO levels (hash, kind, body) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`,
		c.Level.Hash, c.Level.Kind, string(c.Level.Body)); err != nil {
		return err
	}
	var job int64
	err = tx.QueryRow(ctx, `
		INSERT INTO jobs (batch_id, seq, level_hash, kind, state, priority, labels, attempts, started_at, finished_at, verdict,
			project_id)
		SELECT $1, $2, $3, $4, 'done', 'bulk', coalesce(b.labels, '{}'::jsonb) || coalesce($5::jsonb, '{}'::jsonb), 1,
			now() - $6 * interval '1 millisecond', now(), $7, b.project_id
		FROM batches b WHERE b.id = $1
		RETURNING id`,
		batch, int32(seq), c.Level.Hash, c.Level.Kind, nullJSON(c.Labels), c.Result.Stats.ElapsedMS, a.verdict).Scan(&job)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, insertResults+` VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11::jsonb)`,
		job, c.Level.Hash, c.SolverVersion, a.verdict, a.value, a.optimal, a.proof, textOrNil(a.plan),
		textOrNil(a.details), string(a.stats), difficultyArg(c.Result))
	return err
}

// EndGeneration ends a running generation in state with a note, and sets
// its batch's total to the levels kept, so the batch reads as complete.
// It reports false when the generation was no longer running.
func (s *Store) EndGeneration(ctx context.Context, id int64, state, note string) (bool, error) {
	ended := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var batch int64
		var kept int
		err := tx.QueryRow(ctx, `UPDATE generations SET state = $2, note = nullif($3, ''), finished_at = now()
			WHERE id = $1 AND state = 'running' RETURNING batch_id, kept`, id, state, note).Scan(&batch, &kept)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ended = true
		if _, err := tx.Exec(ctx, `UPDATE batches SET total = $2 WHERE id = $1`, batch, kept); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `SELECT pg_notify('`+finalChannel+`', $1)`, BatchKey(batch))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: end generation %d: %w", id, err)
	}
	return ended, nil
}

// CancelGeneration cancels a generation and its batch (the worker stops
// before its next candidate). Canceling one that has ended changes
// nothing.
func (s *Store) CancelGeneration(ctx context.Context, id int64) (Generation, error) {
	g, err := s.GetGeneration(ctx, id)
	if err != nil {
		return Generation{}, err
	}
	if _, err := s.EndGeneration(ctx, id, GenerationCanceled, "canceled"); err != nil {
		return Generation{}, err
	}
	if _, err := s.CancelBatch(ctx, g.BatchID); err != nil {
		return Generation{}, err
	}
	return s.GetGeneration(ctx, id)
}

// RunningGenerations lists the ids of the running generations (the
// dispatcher enqueues their tasks again after a Redis loss).
func (s *Store) RunningGenerations(ctx context.Context) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM generations WHERE state = 'running' ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: running generations: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: running generations: %w", err)
	}
	return ids, nil
}
