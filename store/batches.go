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

// BatchParams are the arguments of CreateBatch.
type BatchParams struct {
	Levels      []Level // in submission order
	Priority    string
	Budget      solver.Budget
	Labels      json.RawMessage
	MaxAttempts int
	// Versions maps each kind to its current solver version: definitive
	// results of that version complete jobs at once.
	Versions map[string]string
}

// Batch is a batch with its progress.
type Batch struct {
	ID         int64           `json:"id"`
	Total      int             `json:"total"`
	Priority   string          `json:"priority"`
	Labels     json.RawMessage `json:"labels,omitempty"`
	CreatedAt  time.Time       `json:"created_at"`
	CanceledAt *time.Time      `json:"canceled_at,omitempty"`
	States     map[string]int  `json:"states"`
	Verdicts   map[string]int  `json:"verdicts"`
	Cached     int             `json:"cached"`
	Done       float64         `json:"done"` // fraction of jobs in a final state
	FinishedAt *time.Time      `json:"finished_at,omitempty"`
	Kinds      map[string]int  `json:"kinds"`
}

// CreateBatch stores a batch with COPY: its levels (once per hash) and one
// queued job per level. Later copies of a level inside the batch wait for
// the first (dup_of); levels with a definitive result of the current
// solver version are completed at once as cached.
func (s *Store) CreateBatch(ctx context.Context, p BatchParams) (int64, error) {
	var id int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO batches (total, priority, labels) VALUES ($1, $2, $3) RETURNING id`,
			len(p.Levels), p.Priority, nullJSON(p.Labels)).Scan(&id)
		if err != nil {
			return fmt.Errorf("insert batch: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE new_levels (hash text, kind text, body jsonb) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("temp table: %w", err)
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"new_levels"}, []string{"hash", "kind", "body"},
			pgx.CopyFromSlice(len(p.Levels), func(i int) ([]any, error) {
				l := p.Levels[i]
				return []any{l.Hash, l.Kind, string(l.Body)}, nil
			}))
		if err != nil {
			return fmt.Errorf("copy levels: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO levels (hash, kind, body)
			SELECT DISTINCT ON (hash) hash, kind, body FROM new_levels ORDER BY hash
			ON CONFLICT (hash) DO NOTHING`); err != nil {
			return fmt.Errorf("insert levels: %w", err)
		}
		maxNodes, maxMS := nullIfZero(p.Budget.MaxNodes), nullIfZero(p.Budget.MaxMS)
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"jobs"},
			[]string{"batch_id", "seq", "level_hash", "kind", "priority", "max_nodes", "max_ms", "max_attempts"},
			pgx.CopyFromSlice(len(p.Levels), func(i int) ([]any, error) {
				l := p.Levels[i]
				return []any{id, int32(i), l.Hash, l.Kind, p.Priority, maxNodes, maxMS, int32(p.MaxAttempts)}, nil
			}))
		if err != nil {
			return fmt.Errorf("copy jobs: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			UPDATE jobs j SET dup_of = f.first
			FROM (SELECT level_hash, min(id) AS first FROM jobs WHERE batch_id = $1
				GROUP BY level_hash HAVING count(*) > 1) f
			WHERE j.batch_id = $1 AND j.level_hash = f.level_hash AND j.id <> f.first`, id); err != nil {
			return fmt.Errorf("mark duplicates: %w", err)
		}
		kinds, versions := make([]string, 0, len(p.Versions)), make([]string, 0, len(p.Versions))
		for k, v := range p.Versions {
			kinds, versions = append(kinds, k), append(versions, v)
		}
		if _, err := tx.Exec(ctx, `
			WITH v AS (SELECT unnest($2::text[]) AS kind, unnest($3::text[]) AS version),
			src AS (
				SELECT DISTINCT ON (j.id) j.id AS job_id, r.job_id AS src
				FROM jobs j
				JOIN v ON v.kind = j.kind
				JOIN results r ON r.level_hash = j.level_hash AND r.solver_version = v.version
					AND r.verdict IN ('solved', 'unsolvable')
				WHERE j.batch_id = $1
				ORDER BY j.id, r.job_id
			), u AS (
				UPDATE jobs SET state = 'done', cached = true, finished_at = now(), dup_of = NULL
				FROM src WHERE jobs.id = src.job_id
			)
			INSERT INTO results (job_id, level_hash, solver_version, verdict, value, optimal, proof, plan, details, stats)
			SELECT src.job_id, r.level_hash, r.solver_version, r.verdict, r.value, r.optimal, r.proof, r.plan, r.details, r.stats
			FROM src JOIN results r ON r.job_id = src.src`, id, kinds, versions); err != nil {
			return fmt.Errorf("complete cached: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: create batch: %w", err)
	}
	return id, nil
}

// GetBatch returns a batch with its counts per state, verdict and kind.
func (s *Store) GetBatch(ctx context.Context, id int64) (Batch, error) {
	b := Batch{States: map[string]int{}, Verdicts: map[string]int{}, Kinds: map[string]int{}}
	err := s.pool.QueryRow(ctx, `SELECT id, total, priority, labels, created_at, canceled_at FROM batches WHERE id = $1`, id).
		Scan(&b.ID, &b.Total, &b.Priority, &b.Labels, &b.CreatedAt, &b.CanceledAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Batch{}, fmt.Errorf("batch %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Batch{}, fmt.Errorf("store: get batch: %w", err)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT j.state::text, j.kind, coalesce(r.verdict, ''), j.cached, count(*), max(j.finished_at)
		FROM jobs j LEFT JOIN results r ON r.job_id = j.id
		WHERE j.batch_id = $1
		GROUP BY 1, 2, 3, 4`, id)
	if err != nil {
		return Batch{}, fmt.Errorf("store: batch counts: %w", err)
	}
	defer rows.Close()
	final := 0
	for rows.Next() {
		var state, kind, verdict string
		var cached bool
		var n int
		var last *time.Time
		if err := rows.Scan(&state, &kind, &verdict, &cached, &n, &last); err != nil {
			return Batch{}, fmt.Errorf("store: batch counts: %w", err)
		}
		b.States[state] += n
		b.Kinds[kind] += n
		if verdict != "" {
			b.Verdicts[verdict] += n
		}
		if cached {
			b.Cached += n
		}
		if state != StateQueued && state != StateRunning {
			final += n
			if last != nil && (b.FinishedAt == nil || last.After(*b.FinishedAt)) {
				b.FinishedAt = last
			}
		}
	}
	if err := rows.Err(); err != nil {
		return Batch{}, fmt.Errorf("store: batch counts: %w", err)
	}
	if b.Total > 0 {
		b.Done = float64(final) / float64(b.Total)
	}
	if final < b.Total {
		b.FinishedAt = nil
	}
	return b, nil
}

// BatchResult is one line of a batch's results.
type BatchResult struct {
	Seq       int32   `json:"seq"`
	JobID     int64   `json:"job_id"`
	LevelHash string  `json:"level_hash"`
	Kind      string  `json:"kind"`
	State     string  `json:"state"`
	Cached    bool    `json:"cached"`
	Error     *string `json:"error,omitempty"`
	Result    *Result `json:"result,omitempty"`
}

// BatchResults calls fn for each job of the batch in submission order,
// streaming from the database. It returns ErrNotFound for an unknown batch.
func (s *Store) BatchResults(ctx context.Context, id int64, fn func(BatchResult) error) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM batches WHERE id = $1)`, id).Scan(&exists); err != nil {
		return fmt.Errorf("store: batch results: %w", err)
	}
	if !exists {
		return fmt.Errorf("batch %d: %w", id, ErrNotFound)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT j.seq, j.id, j.level_hash, j.kind, j.state::text, j.cached, j.error, `+resultColumns("r")+`
		FROM jobs j LEFT JOIN results r ON r.job_id = j.id
		WHERE j.batch_id = $1 ORDER BY j.seq`, id)
	if err != nil {
		return fmt.Errorf("store: batch results: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var br BatchResult
		var res resultRow
		if err := rows.Scan(append([]any{&br.Seq, &br.JobID, &br.LevelHash, &br.Kind, &br.State, &br.Cached,
			&br.Error}, res.dest()...)...); err != nil {
			return fmt.Errorf("store: batch results: %w", err)
		}
		br.Result = res.result()
		if err := fn(br); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: batch results: %w", err)
	}
	return nil
}

// CancelBatch cancels every queued or running job of the batch and returns
// their ids (so running searches can be told to stop).
func (s *Store) CancelBatch(ctx context.Context, id int64) ([]int64, error) {
	var ids []int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE batches SET canceled_at = coalesce(canceled_at, now()) WHERE id = $1`, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("batch %d: %w", id, ErrNotFound)
		}
		rows, err := tx.Query(ctx, `UPDATE jobs SET state = 'canceled', finished_at = now(), dup_of = NULL
			WHERE batch_id = $1 AND state IN ('queued', 'running') RETURNING id`, id)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, err
		}
		return nil, fmt.Errorf("store: cancel batch: %w", err)
	}
	return ids, nil
}
