package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// BatchParams are the arguments of CreateBatch.
type BatchParams struct {
	Levels []Level // in submission order; ignored when Stream is set
	// Stream, when set, yields the levels in submission order instead of
	// Levels, and returns io.EOF after the last; any other error aborts the
	// batch and is returned (wrapped). Each level goes on to COPY as it
	// arrives, so a batch need not fit in memory.
	Stream LevelStream
	// Finish, when set, is called after the last level, before anything is
	// visible: it may fill the fields below (options that follow the levels
	// in a request body, the versions of the kinds seen) or return an
	// error, which aborts the batch and is returned (wrapped).
	Finish      func(*BatchParams) error
	Priority    jobtype.Priority
	Budget      solver.Budget
	Playouts    *int // difficulty option of every job, as JobParams.Playouts
	Labels      json.RawMessage
	MaxAttempts int
	// Versions maps each kind to its current solver version: definitive
	// results of that version complete jobs at once.
	Versions map[string]string
	// Webhooks are the batch's callbacks (webhooks.go), stored before its
	// jobs so that jobs finished at once from the cache are reported too.
	Webhooks []NewWebhook
	// Project is the batch's and its jobs' (0: DefaultProject).
	Project int64
}

// LevelStream yields a batch's levels one at a time.
type LevelStream interface {
	Next() (Level, error)
}

// Batch is a batch with its progress.
type Batch struct {
	ID         int64
	ProjectID  int64
	Total      int
	Priority   jobtype.Priority
	Labels     json.RawMessage
	CreatedAt  time.Time
	CanceledAt *time.Time
	States     map[string]int
	Verdicts   map[string]int
	Cached     int
	Done       float64 // fraction of jobs in a final state
	FinishedAt *time.Time
	Kinds      map[string]int
}

// CreateBatch stores a batch in one transaction: its levels are copied
// (COPY) as they come into a temporary table, then the batch row, its
// levels (once per hash) and one queued job per level are written from
// there. Later copies of a level inside the batch wait for the first
// (dup_of); levels with a definitive result of the current solver version
// are completed at once as cached.
func (s *Store) CreateBatch(ctx context.Context, p BatchParams) (int64, error) {
	stream := p.Stream
	if stream == nil {
		stream = &sliceStream{levels: p.Levels}
	}
	var id int64
	var total int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE new_jobs (seq int, hash text, kind text, body jsonb, labels jsonb) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("temp table: %w", err)
		}
		levels, err := s.beginLevelsTx(ctx)
		if err != nil {
			return err
		}
		if levels != nil {
			defer levels.rollback(ctx)
		}
		src := &copySource{stream: stream, seen: map[string]bool{}, levels: levels}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"new_jobs"}, []string{"seq", "hash", "kind", "body", "labels"}, src); err != nil {
			if src.err != nil {
				return src.err // the stream's own error, not the database's
			}
			return fmt.Errorf("copy levels: %w", err)
		}
		if levels != nil {
			if err := levels.finishCopy(); err != nil {
				return err
			}
		}
		if p.Finish != nil {
			if err := p.Finish(&p); err != nil {
				return err
			}
		}
		// The batch's time, which the levels it creates get too.
		var createdAt time.Time
		err = tx.QueryRow(ctx, `INSERT INTO batches (total, priority, labels, project_id) VALUES ($1, $2, $3, $4) RETURNING id, created_at`,
			src.n, p.Priority, nullJSON(p.Labels), projectOr(p.Project)).Scan(&id, &createdAt)
		if err != nil {
			return fmt.Errorf("insert batch: %w", err)
		}
		if err := insertWebhooks(ctx, tx, id, p.Webhooks); err != nil {
			return err
		}
		inserted := 0
		if levels != nil {
			// Before the levels' insert can find a level there: see
			// batch_levels.go.
			if _, err := tx.Exec(ctx, `LOCK TABLE levels IN ROW EXCLUSIVE MODE`); err != nil {
				return fmt.Errorf("lock levels: %w", err)
			}
			levels.insert(ctx, createdAt) // on its own connection, while the jobs go in here
		} else if inserted, err = insertLevels(ctx, tx, "new_jobs", createdAt); err != nil {
			return err
		}
		maxNodes, maxMS := nullIfZero(p.Budget.MaxNodes), nullIfZero(p.Budget.MaxMS)
		// A job keeps only its own labels; the batch's are the batch's
		// (batchLabels), applied to its jobs when they are read.
		if _, err := tx.Exec(ctx, `
			INSERT INTO jobs (batch_id, seq, level_hash, kind, priority, max_nodes, max_ms, max_attempts, labels,
				difficulty_playouts, project_id)
			SELECT $1, seq, hash, kind, $2, $3, $4, $5, labels, $6, $7
			FROM new_jobs ORDER BY seq`,
			id, p.Priority, maxNodes, maxMS, int32(p.MaxAttempts), p.Playouts, projectOr(p.Project)); err != nil {
			return fmt.Errorf("insert jobs: %w", err)
		}
		if levels != nil {
			if inserted, err = levels.wait(); err != nil {
				return err
			}
		}
		// Levels that existed before the batch (the others were inserted).
		known := len(src.unique) - inserted
		if len(p.Labels) > 0 && string(p.Labels) != "null" {
			if err := batchLabels(ctx, tx, id, known > 0, inserted > 0); err != nil {
				return err
			}
		}
		if len(src.unique) < src.n {
			if _, err := tx.Exec(ctx, `
				UPDATE jobs j SET dup_of = f.first
				FROM (SELECT level_hash, min(id) AS first FROM jobs WHERE batch_id = $1
					GROUP BY level_hash HAVING count(*) > 1) f
				WHERE j.batch_id = $1 AND j.level_hash = f.level_hash AND j.id <> f.first`, id); err != nil {
				return fmt.Errorf("mark duplicates: %w", err)
			}
		}
		cached, err := completeCached(ctx, tx, id, projectOr(p.Project), src.unique, p.Versions, wantsFigures(p.Playouts))
		if err != nil {
			return err
		}
		if err := insertBundles(ctx, tx, id, src.n, cached, p); err != nil {
			return err
		}
		total = src.n
		if levels != nil {
			return levels.commit(ctx) // just before the batch's own
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: create batch: %w", err)
	}
	s.analyzeIfGrown(ctx, total)
	return id, nil
}

// batchLabels writes the label rows of a new batch: one batch_labels row
// per string label, and a level_labels row per label and level of the
// batch that existed before it (GET /v1/levels?label= lists the levels of
// a label's jobs; the levels the batch creates share its created_at and
// are found through the batch, see LevelsQuery). known says whether any
// level of the batch existed before it: without one, the level_labels
// pass would join every level of the batch to find none (0.8 s of the 5 s
// that a batch of 100,000 new levels takes). created says whether the
// batch created any (batch_labels.creates_levels: LevelsQuery probes only
// such batches).
func batchLabels(ctx context.Context, tx pgx.Tx, batchID int64, known, created bool) error {
	if _, err := tx.Exec(ctx, `
		INSERT INTO batch_labels (key, value, created_at, batch_id, creates_levels)
		SELECT e.key, e.value #>> '{}', b.created_at, b.id, $2
		FROM batches b, jsonb_each(b.labels) e
		WHERE b.id = $1 AND jsonb_typeof(b.labels) = 'object' AND jsonb_typeof(e.value) = 'string'`, batchID, created); err != nil {
		return fmt.Errorf("insert batch labels: %w", err)
	}
	if !known {
		return nil
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO level_labels (key, value, level_created_at, level_hash)
		SELECT e.key, e.value #>> '{}', l.created_at, l.hash
		FROM batches b, jsonb_each(b.labels) e, (SELECT DISTINCT hash FROM new_jobs) n JOIN levels l ON l.hash = n.hash
		WHERE b.id = $1 AND jsonb_typeof(b.labels) = 'object' AND jsonb_typeof(e.value) = 'string'
			AND l.created_at <> b.created_at
		ORDER BY 1, 2, 3, 4  -- one order for every inserter: no deadlock on a row two insert
		ON CONFLICT DO NOTHING`, batchID); err != nil {
		return fmt.Errorf("insert level labels: %w", err)
	}
	return nil
}

// copySource feeds a LevelStream to COPY: one row per level, the body only
// for the first copy of each hash. It keeps the distinct hashes (for the
// cache lookup), not the bodies.
type copySource struct {
	stream LevelStream
	seen   map[string]bool
	unique []string  // distinct hashes, first copy first
	levels *levelsTx // where the bodies go; nil: with the rows, into new_jobs
	n      int       // levels so far
	row    []any
	err    error
}

func (c *copySource) Next() bool {
	l, err := c.stream.Next()
	if errors.Is(err, io.EOF) {
		return false
	}
	if err != nil {
		c.err = err
		return false
	}
	var body any // NULL: a repeat, stored once already
	if !c.seen[l.Hash] {
		c.seen[l.Hash] = true
		c.unique = append(c.unique, l.Hash)
		body = string(l.Body)
		if c.levels != nil {
			if !c.levels.send(l.Hash, l.Kind, string(l.Body)) {
				return false // the levels' COPY failed: its error ends the batch
			}
			body = nil
		}
	}
	c.row = []any{int32(c.n), l.Hash, l.Kind, body, nullJSON(l.Labels)}
	c.n++
	return true
}

func (c *copySource) Values() ([]any, error) { return c.row, nil }
func (c *copySource) Err() error             { return c.err }

// sliceStream is a LevelStream over levels held in memory.
type sliceStream struct {
	levels []Level
	i      int
}

func (s *sliceStream) Next() (Level, error) {
	if s.i == len(s.levels) {
		return Level{}, io.EOF
	}
	s.i++
	return s.levels[s.i-1], nil
}

// completeCached completes the batch's jobs whose level already has a
// definitive result of the current solver version in the same project
// (sameProject). The hits are looked up
// by hash first (index probes; a fresh batch usually has none): joining the
// just-copied jobs directly would be planned with stale statistics.
// figures says whether the batch's jobs want difficulty figures (cachedFor).
func completeCached(ctx context.Context, tx pgx.Tx, batchID, project int64, hashes []string, kindVersions map[string]string, figures bool) (int, error) {
	kinds, versions := make([]string, 0, len(kindVersions)), make([]string, 0, len(kindVersions))
	for k, v := range kindVersions {
		kinds, versions = append(kinds, k), append(versions, v)
	}
	rows, err := tx.Query(ctx, `
		SELECT DISTINCT ON (r.level_hash) r.level_hash, r.job_id
		FROM results r
		JOIN unnest($2::text[], $3::text[]) AS v (kind, version) ON v.version = r.solver_version
		JOIN levels l ON l.hash = r.level_hash AND l.kind = v.kind
		WHERE r.level_hash = ANY ($1) AND r.verdict IN `+definitiveVerdicts+` AND `+cachedFor("$4")+`
			AND `+sameProject("$5")+`
		ORDER BY r.level_hash, r.difficulty IS NULL, r.job_id`, hashes, kinds, versions, figures, project)
	if err != nil {
		return 0, fmt.Errorf("find cached results: %w", err)
	}
	type hit struct {
		Hash string
		Src  int64
	}
	hits, err := pgx.CollectRows(rows, pgx.RowToStructByPos[hit])
	if err != nil || len(hits) == 0 {
		return 0, err
	}
	hitHashes, srcs := make([]string, len(hits)), make([]int64, len(hits))
	for i, h := range hits {
		hitHashes[i], srcs[i] = h.Hash, h.Src
	}
	tag, err := tx.Exec(ctx, `
		WITH hit AS (
			SELECT h.*, r.verdict FROM unnest($2::text[], $3::bigint[]) AS h (hash, src)
			JOIN results r ON r.job_id = h.src
		), u AS (
			UPDATE jobs SET state = 'done', cached = true, finished_at = now(), dup_of = NULL, verdict = hit.verdict
			FROM hit WHERE jobs.batch_id = $1 AND jobs.level_hash = hit.hash
			RETURNING jobs.id, hit.src
		)
		`+insertResults+`
		SELECT u.id, r.level_hash, r.solver_version, r.verdict, r.value, r.optimal, r.proof, r.plan, r.details, r.stats, r.difficulty
		FROM u JOIN results r ON r.job_id = u.src`, batchID, hitHashes, srcs)
	if err != nil {
		return 0, fmt.Errorf("complete cached jobs: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// insertBundles stores the bundles of a new batch of n jobs, cached of
// them done already: every bundle when nothing was cached (the batch's
// jobs are all queued), otherwise those that still carry a queued job.
func insertBundles(ctx context.Context, tx pgx.Tx, batchID int64, n, cached int, p BatchParams) error {
	if cached == n {
		return nil
	}
	firsts := `SELECT g * $2 FROM generate_series(0, ($3 - 1) / $2) g`
	if cached > 0 {
		firsts = `SELECT DISTINCT seq / $2 * $2 FROM jobs
			WHERE batch_id = $1 AND state = 'queued' AND dup_of IS NULL AND $3 > 0`
	}
	_, err := tx.Exec(ctx, `
		WITH d AS (
			INSERT INTO batch_dispatch (batch_id, priority, max_ms, project_id) VALUES ($1, $4, $5, $6)
		)
		INSERT INTO bundles (batch_id, first_seq, end_seq)
		SELECT $1, f.first, f.first + $2 FROM (`+firsts+`) f (first)`,
		batchID, int32(BundleSize), int32(n), p.Priority, p.Budget.MaxMS, projectOr(p.Project))
	if err != nil {
		return fmt.Errorf("insert bundles: %w", err)
	}
	return nil
}

// GetBatch returns a batch with its counts per state, verdict and kind.
func (s *Store) GetBatch(ctx context.Context, id int64) (Batch, error) {
	b := Batch{States: map[string]int{}, Verdicts: map[string]int{}, Kinds: map[string]int{}}
	err := s.pool.QueryRow(ctx, `SELECT id, project_id, total, priority, labels, created_at, canceled_at FROM batches WHERE id = $1`, id).
		Scan(&b.ID, &b.ProjectID, &b.Total, &b.Priority, &b.Labels, &b.CreatedAt, &b.CanceledAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Batch{}, fmt.Errorf("batch %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Batch{}, fmt.Errorf("store: get batch: %w", err)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT state::text, kind, verdict, cached, sum(n)::bigint, max(finished_at)
		FROM job_counts WHERE batch_id = $1
		GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0`, id)
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
		if !jobtype.State(state).Live() {
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
	Seq       int32
	JobID     int64
	LevelHash string
	Kind      string
	State     jobtype.State
	Cached    bool
	Error     *string
	Result    *Result
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
			WHERE batch_id = $1 AND state IN `+liveStates+` RETURNING id`, id)
		if err != nil {
			return err
		}
		if ids, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `WITH d AS (DELETE FROM batch_dispatch WHERE batch_id = $1)
			DELETE FROM bundles WHERE batch_id = $1`, id)
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
