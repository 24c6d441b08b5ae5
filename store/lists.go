package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/puzzled/puzzled/api/wire"
)

// Lists page newest first by (created_at, id) — (created_at, hash) for
// levels — with keyset pagination: a page starts strictly after the
// position of the last row of the previous one, so no offset is scanned
// and rows stored meanwhile never shift a page (new rows are newer than
// any cursor taken before they existed, except a row whose transaction
// began earlier, which then shows up once, further down). Every filter has
// an index on (column, created_at, id) (migrations/00005_lists.sql).

// MaxListLimit caps the rows of one page.
const MaxListLimit = wire.MaxListLimit

// Position is where a page ends: the sort key of its last row.
type Position struct {
	At  time.Time
	ID  int64  // jobs, batches, results (job id)
	Key string // levels (hash)
}

// JobFilter selects jobs; zero fields do not filter. All filters AND.
type JobFilter struct {
	BatchID   int64
	Kind      string
	State     string
	Verdict   string
	LevelHash string
	Labels    []Label // each must be among the job's labels
	Since     time.Time
	Until     time.Time // exclusive
	After     *Position // the cursor: rows after it
	Limit     int
}

// Label is one key:value label filter.
type Label struct{ Key, Value string }

// json returns the label as a containment object {"key":"value"}.
func (l Label) json() string {
	b, _ := json.Marshal(map[string]string{l.Key: l.Value})
	return string(b)
}

// where collects the conditions and arguments of a list query.
type where struct {
	conds []string
	args  []any
}

// add appends a condition; each ? in it becomes the next argument.
func (w *where) add(cond string, args ...any) {
	for _, a := range args {
		w.args = append(w.args, a)
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(w.args)), 1)
	}
	w.conds = append(w.conds, cond)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return "WHERE " + strings.Join(w.conds, " AND ")
}

// common adds the filters shared by every list: labels, time, cursor.
func (w *where) common(a string, labels []Label, since, until time.Time, after *Position, key string) {
	for _, l := range labels {
		w.add(a+".labels @> ?::jsonb", l.json())
	}
	if !since.IsZero() {
		w.add(a+".created_at >= ?", since)
	}
	if !until.IsZero() {
		w.add(a+".created_at < ?", until)
	}
	if after != nil {
		var k any = after.ID
		if key == "hash" {
			k = after.Key
		}
		w.add("("+a+".created_at, "+a+"."+key+") < (?, ?)", after.At, k)
	}
}

// limitOf is the LIMIT of a list query: the API asks for one row more
// than a page to learn whether there is a next one.
func limitOf(n int) int {
	if n <= 0 {
		return 100
	}
	return n
}

// JobListItem is a row of a list; the API sends it as it is.
type JobListItem = wire.JobListItem

// JobsQuery returns the SQL and arguments of ListJobs (for EXPLAIN in tests
// and benchmarks).
func JobsQuery(f JobFilter) (string, []any) {
	var w where
	if f.BatchID != 0 {
		w.add("j.batch_id = ?", f.BatchID)
	}
	if f.Kind != "" {
		w.add("j.kind = ?", f.Kind)
	}
	if f.State != "" {
		w.add("j.state = ?::job_state", f.State)
	}
	if f.Verdict != "" {
		w.add("j.verdict = ?", f.Verdict)
	}
	if f.LevelHash != "" {
		w.add("j.level_hash = ?", f.LevelHash)
	}
	w.common("j", f.Labels, f.Since, f.Until, f.After, "id")
	return `SELECT j.id, j.batch_id, j.seq, j.level_hash, j.kind, j.state::text, j.priority, j.labels, j.cached,
			j.verdict, r.value, r.optimal, j.error, j.created_at, j.finished_at
		FROM jobs j LEFT JOIN results r ON r.job_id = j.id
		` + w.sql() + `
		ORDER BY j.created_at DESC, j.id DESC
		LIMIT ` + strconv.Itoa(limitOf(f.Limit)), w.args
}

// ListJobs calls fn for each job the filter selects, newest first,
// streaming rows from the database.
func (s *Store) ListJobs(ctx context.Context, f JobFilter, fn func(JobListItem) error) error {
	q, args := JobsQuery(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: list jobs: %w", err)
	}
	return eachRow(rows, "list jobs", func(row pgx.Rows) error {
		var j JobListItem
		if err := row.Scan(&j.ID, &j.BatchID, &j.Seq, &j.LevelHash, &j.Kind, &j.State, &j.Priority, &j.Labels,
			&j.Cached, &j.Verdict, &j.Value, &j.Optimal, &j.Error, &j.CreatedAt, &j.FinishedAt); err != nil {
			return err
		}
		return fn(j)
	})
}

// BatchFilter selects batches.
type BatchFilter struct {
	Labels []Label
	Since  time.Time
	Until  time.Time
	After  *Position
	Limit  int
}

// BatchListItem is a row of a list; the API sends it as it is.
type BatchListItem = wire.BatchListItem

// BatchesQuery returns the SQL and arguments of ListBatches.
func BatchesQuery(f BatchFilter) (string, []any) {
	var w where
	w.common("b", f.Labels, f.Since, f.Until, f.After, "id")
	return `SELECT b.id, b.total, b.priority, b.labels, b.created_at, b.canceled_at FROM batches b
		` + w.sql() + `
		ORDER BY b.created_at DESC, b.id DESC
		LIMIT ` + strconv.Itoa(limitOf(f.Limit)), w.args
}

// ListBatches calls fn for each batch the filter selects, newest first.
func (s *Store) ListBatches(ctx context.Context, f BatchFilter, fn func(BatchListItem) error) error {
	q, args := BatchesQuery(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: list batches: %w", err)
	}
	return eachRow(rows, "list batches", func(row pgx.Rows) error {
		var b BatchListItem
		if err := row.Scan(&b.ID, &b.Total, &b.Priority, &b.Labels, &b.CreatedAt, &b.CanceledAt); err != nil {
			return err
		}
		return fn(b)
	})
}

// LevelFilter selects levels.
type LevelFilter struct {
	Kind    string
	Verdict string  // of the level's newest definitive result
	Labels  []Label // some job of the level has every one
	After   *Position
	Limit   int
}

// LevelListItem is a row of a list; the API sends it as it is.
type LevelListItem = wire.LevelListItem

// LevelsQuery returns the SQL and arguments of ListLevels. The newest
// definitive result of each level is one probe of results_level_created.
func LevelsQuery(f LevelFilter) (string, []any) {
	var w where
	if f.Kind != "" {
		w.add("l.kind = ?", f.Kind)
	}
	if f.Verdict != "" {
		w.add("r.verdict = ?", f.Verdict)
	}
	// A label is looked for among the level's jobs, one index probe per
	// level (jobs_list_level) in the levels' order: the LIMIT keeps the
	// planner from turning it into a semi-join over every labelled job.
	var labelJoins strings.Builder
	for i, lb := range f.Labels {
		w.args = append(w.args, lb.json())
		fmt.Fprintf(&labelJoins, `
		JOIN LATERAL (SELECT 1 FROM jobs j WHERE j.level_hash = l.hash AND j.labels @> $%d::jsonb LIMIT 1) lb%d ON true`,
			len(w.args), i)
	}
	w.common("l", nil, time.Time{}, time.Time{}, f.After, "hash")
	join := "LEFT JOIN LATERAL"
	if f.Verdict != "" {
		join = "JOIN LATERAL"
	}
	return `SELECT l.hash, l.kind, l.created_at, r.verdict, r.value, r.optimal, r.solver_version, r.job_id, r.created_at
		FROM levels l` + labelJoins.String() + `
		` + join + ` (
			SELECT * FROM results
			WHERE level_hash = l.hash AND verdict IN ` + definitiveVerdicts + `
			ORDER BY created_at DESC, job_id DESC LIMIT 1
		) r ON true
		` + w.sql() + `
		ORDER BY l.created_at DESC, l.hash DESC
		LIMIT ` + strconv.Itoa(limitOf(f.Limit)), w.args
}

// ListLevels calls fn for each level the filter selects, newest first.
func (s *Store) ListLevels(ctx context.Context, f LevelFilter, fn func(LevelListItem) error) error {
	q, args := LevelsQuery(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: list levels: %w", err)
	}
	return eachRow(rows, "list levels", func(row pgx.Rows) error {
		var l LevelListItem
		if err := row.Scan(&l.Hash, &l.Kind, &l.CreatedAt, &l.Verdict, &l.Value, &l.Optimal, &l.SolverVersion,
			&l.JobID, &l.SolvedAt); err != nil {
			return err
		}
		return fn(l)
	})
}

// LevelResultItem is one result a level has had (GET /v1/levels/{hash}/results);
// the API sends it as a wire.LevelResultItem.
type LevelResultItem struct {
	JobID int64 `json:"job_id"`
	Result
}

// LevelResultsQuery returns the SQL and arguments of LevelResults.
func LevelResultsQuery(hash string, after *Position, limit int) (string, []any) {
	var w where
	w.add("r.level_hash = ?", hash)
	if after != nil {
		w.add("(r.created_at, r.job_id) < (?, ?)", after.At, after.ID)
	}
	return `SELECT r.job_id, ` + resultColumns("r") + ` FROM results r
		` + w.sql() + `
		ORDER BY r.created_at DESC, r.job_id DESC
		LIMIT ` + strconv.Itoa(limitOf(limit)), w.args
}

// LevelResults calls fn for each result the level has had, across solver
// versions and budgets, newest first. The plan is left out (it is the
// job's: GET /v1/jobs/{id}/solution). An unknown level is ErrNotFound.
func (s *Store) LevelResults(ctx context.Context, hash string, after *Position, limit int, fn func(LevelResultItem) error) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM levels WHERE hash = $1)`, hash).Scan(&exists); err != nil {
		return fmt.Errorf("store: level results: %w", err)
	}
	if !exists {
		return fmt.Errorf("level %s: %w", hash, ErrNotFound)
	}
	q, args := LevelResultsQuery(hash, after, limit)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: level results: %w", err)
	}
	return eachRow(rows, "level results", func(row pgx.Rows) error {
		var it LevelResultItem
		var res resultRow
		if err := row.Scan(append([]any{&it.JobID}, res.dest()...)...); err != nil {
			return err
		}
		it.Result = *res.result()
		it.Plan = nil
		return fn(it)
	})
}

// eachRow calls fn for every row, then closes rows.
func eachRow(rows pgx.Rows, what string, fn func(pgx.Rows) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return fmt.Errorf("store: %s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	return nil
}

// Explain returns PostgreSQL's plan of query q (for tests and the
// benchmark, which check that every list query is served by an index).
func (s *Store) Explain(ctx context.Context, q string, args ...any) (string, error) {
	rows, err := s.pool.Query(ctx, "EXPLAIN "+q, args...)
	if err != nil {
		return "", fmt.Errorf("store: explain: %w", err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("store: explain: %w", err)
	}
	return strings.Join(lines, "\n"), nil
}
