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
	unique := distinctLevels(p.Levels)
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
			pgx.CopyFromSlice(len(unique), func(i int) ([]any, error) {
				l := unique[i]
				return []any{l.Hash, l.Kind, string(l.Body)}, nil
			}))
		if err != nil {
			return fmt.Errorf("copy levels: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO levels (hash, kind, body)
			SELECT hash, kind, body FROM new_levels ON CONFLICT (hash) DO NOTHING`); err != nil {
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
		if len(unique) == len(p.Levels) {
			return completeCached(ctx, tx, id, unique, p.Versions)
		}
		if _, err := tx.Exec(ctx, `
			UPDATE jobs j SET dup_of = f.first
			FROM (SELECT level_hash, min(id) AS first FROM jobs WHERE batch_id = $1
				GROUP BY level_hash HAVING count(*) > 1) f
			WHERE j.batch_id = $1 AND j.level_hash = f.level_hash AND j.id <> f.first`, id); err != nil {
			return fmt.Errorf("mark duplicates: %w", err)
		}
		return completeCached(ctx, tx, id, unique, p.Versions)
	})
	if err != nil {
		return 0, fmt.Errorf("store: create batch: %w", err)
	}
	return id, nil
}

// distinctLevels returns the levels without repeats, first copy first.
func distinctLevels(levels []Level) []Level {
	seen := make(map[string]bool, len(levels))
	out := make([]Level, 0, len(levels))
	for _, l := range levels {
		if !seen[l.Hash] {
			seen[l.Hash] = true
			out = append(out, l)
		}
	}
	return out
}

// completeCached completes the batch's jobs whose level already has a
// definitive result of the current solver version. The hits are looked up
// by hash first (index probes; a fresh batch usually has none): joining the
// just-copied jobs directly would be planned with stale statistics.
func completeCached(ctx context.Context, tx pgx.Tx, batchID int64, unique []Level, kindVersions map[string]string) error {
	hashes := make([]string, len(unique))
	for i, l := range unique {
		hashes[i] = l.Hash
	}
	kinds, versions := make([]string, 0, len(kindVersions)), make([]string, 0, len(kindVersions))
	for k, v := range kindVersions {
		kinds, versions = append(kinds, k), append(versions, v)
	}
	rows, err := tx.Query(ctx, `
		SELECT DISTINCT ON (r.level_hash) r.level_hash, r.job_id
		FROM results r
		JOIN unnest($2::text[], $3::text[]) AS v (kind, version) ON v.version = r.solver_version
		JOIN levels l ON l.hash = r.level_hash AND l.kind = v.kind
		WHERE r.level_hash = ANY ($1) AND r.verdict IN ('solved', 'unsolvable')
		ORDER BY r.level_hash, r.job_id`, hashes, kinds, versions)
	if err != nil {
		return fmt.Errorf("find cached results: %w", err)
	}
	type hit struct {
		Hash string
		Src  int64
	}
	hits, err := pgx.CollectRows(rows, pgx.RowToStructByPos[hit])
	if err != nil || len(hits) == 0 {
		return err
	}
	hitHashes, srcs := make([]string, len(hits)), make([]int64, len(hits))
	for i, h := range hits {
		hitHashes[i], srcs[i] = h.Hash, h.Src
	}
	_, err = tx.Exec(ctx, `
		WITH hit AS (
			SELECT h.*, r.verdict FROM unnest($2::text[], $3::bigint[]) AS h (hash, src)
			JOIN results r ON r.job_id = h.src
		), u AS (
			UPDATE jobs SET state = 'done', cached = true, finished_at = now(), dup_of = NULL, verdict = hit.verdict
			FROM hit WHERE jobs.batch_id = $1 AND jobs.level_hash = hit.hash
			RETURNING jobs.id, hit.src
		)
		INSERT INTO results (job_id, level_hash, solver_version, verdict, value, optimal, proof, plan, details, stats, difficulty)
		SELECT u.id, r.level_hash, r.solver_version, r.verdict, r.value, r.optimal, r.proof, r.plan, r.details, r.stats, r.difficulty
		FROM u JOIN results r ON r.job_id = u.src`, batchID, hitHashes, srcs)
	if err != nil {
		return fmt.Errorf("complete cached jobs: %w", err)
	}
	return nil
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
		SELECT state::text, kind, coalesce(verdict, ''), cached, count(*), max(finished_at)
		FROM jobs WHERE batch_id = $1
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
