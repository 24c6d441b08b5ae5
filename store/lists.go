package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/jobtype"
)

// Lists page newest first by (created_at, id) — (created_at, hash) for
// levels — with keyset pagination: a page starts strictly after the
// position of the last row of the previous one, so no offset is scanned
// and rows stored meanwhile never shift a page (new rows are newer than
// any cursor taken before they existed, except a row whose transaction
// began earlier, which then shows up once, further down). Every filter has
// an index that yields its rows in page order, (column, created_at, id)
// (migrations/00005_lists.sql), so a page reads about `limit` entries:
// labels through job_labels and level_labels, a level's verdict through
// the levels row (migrations/00009_list_paths.sql).

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
	State     jobtype.State
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

// window adds the time window and the cursor on alias a, whose tie-breaker
// column is key.
func (w *where) window(a string, since, until time.Time, after *Position, key string) {
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

// JobListItem is a job in a list: the job without progress, with its
// result's headline (no plan, proof or details).
type JobListItem struct {
	ID         int64
	BatchID    *int64
	Seq        *int32
	LevelHash  string
	Kind       string
	State      jobtype.State
	Priority   jobtype.Priority
	Labels     json.RawMessage
	Cached     bool
	Verdict    *string
	Value      *int64
	Optimal    *bool
	Error      *string
	CreatedAt  time.Time
	FinishedAt *time.Time
}

// JobsQuery returns the SQL and arguments of ListJobs (for EXPLAIN in tests
// and benchmarks).
//
// A label filter reads job_labels (migrations/00009). The
// first label's rows carry the job's created_at, kind and verdict, so the
// page's other conditions (cursor, time window, kind, verdict) and its
// ORDER BY are put on them: job_labels_list or job_labels_kind_verdict then
// yields the matching jobs already in page order, about `limit` entries
// whatever the table size, each joined to its job by primary key. They are
// not repeated on jobs, nor is the page ordered by a created_at equality
// between the two, because the planner would count such a condition twice
// and misjudge every plan. Further labels filter the job rows the page
// reads anyway (containment in jobs.labels): a join of their job_labels
// rows let the planner hash-join every job of both labels and sort them.
// The rarest label should come first.
func JobsQuery(f JobFilter) (string, []any) {
	var w where
	var join string
	d, key := "j", "id" // the alias that carries the page's order
	for i, lb := range f.Labels {
		if i == 0 {
			join = "\n\t\tJOIN job_labels l0 ON l0.job_id = j.id"
			w.add("l0.key = ? AND l0.value = ?", lb.Key, lb.Value)
			d, key = "l0", "job_id"
			continue
		}
		w.add("j.labels @> ?::jsonb", lb.json())
	}
	if f.BatchID != 0 {
		w.add("j.batch_id = ?", f.BatchID)
	}
	if f.Kind != "" {
		w.add(d+".kind = ?", f.Kind)
	}
	if f.State != "" {
		w.add("j.state = ?::job_state", f.State)
	}
	if f.Verdict != "" {
		w.add(d+".verdict = ?", f.Verdict)
	}
	if f.LevelHash != "" {
		w.add("j.level_hash = ?", f.LevelHash)
	}
	w.window(d, f.Since, f.Until, f.After, key)
	return `SELECT j.id, j.batch_id, j.seq, j.level_hash, j.kind, j.state::text, j.priority, j.labels, j.cached,
			j.verdict, r.value, r.optimal, j.error, j.created_at, j.finished_at
		FROM jobs j` + join + `
		LEFT JOIN results r ON r.job_id = j.id
		` + w.sql() + `
		ORDER BY ` + d + `.created_at DESC, ` + d + `.` + key + ` DESC
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

// BatchListItem is a batch in a list, without its progress counts.
type BatchListItem struct {
	ID         int64
	Total      int
	Priority   jobtype.Priority
	Labels     json.RawMessage
	CreatedAt  time.Time
	CanceledAt *time.Time
}

// BatchesQuery returns the SQL and arguments of ListBatches.
func BatchesQuery(f BatchFilter) (string, []any) {
	var w where
	for _, l := range f.Labels {
		w.add("b.labels @> ?::jsonb", l.json())
	}
	w.window("b", f.Since, f.Until, f.After, "id")
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

// LevelListItem is a level in a list (without its body), with its newest
// definitive result's headline.
type LevelListItem struct {
	Hash          string
	Kind          string
	CreatedAt     time.Time
	Verdict       *string
	Value         *int64
	Optimal       *bool
	SolverVersion *string
	JobID         *int64 // of that result
	SolvedAt      *time.Time
}

// LevelsQuery returns the SQL and arguments of ListLevels.
//
// Every level row carries its newest definitive result's verdict and job
// id, maintained when results are stored (migrations/00009), so verdict=
// reads levels_list_verdict in page order and each listed level joins its
// result by primary key. label= reads level_labels, the distinct levels
// having a job with that label, in page order (level_created_at,
// level_hash): the first label's rows carry the cursor and the ORDER BY
// (see JobsQuery for why not the levels row's), and each is joined to its
// level by primary key. With several labels one job must carry them all:
// the first label's levels are read in order and a probe of each one's
// jobs (jobs_list_level) checks that; the rarest label should come first.
func LevelsQuery(f LevelFilter) (string, []any) {
	var w where
	var join string
	d, at, key := "l", "created_at", "hash"
	if len(f.Labels) > 0 {
		w.add("ll0.key = ? AND ll0.value = ?", f.Labels[0].Key, f.Labels[0].Value)
		join = "\n\t\tJOIN level_labels ll0 ON ll0.level_hash = l.hash"
		d, at, key = "ll0", "level_created_at", "level_hash"
	}
	if len(f.Labels) > 1 {
		var all []string
		for _, lb := range f.Labels {
			w.args = append(w.args, lb.json())
			all = append(all, "j.labels @> $"+strconv.Itoa(len(w.args))+"::jsonb")
		}
		// A LATERAL … LIMIT 1 rather than EXISTS: the planner turns an
		// EXISTS into a semi-join over every level, then sorts.
		join += "\n\t\tJOIN LATERAL (SELECT 1 FROM jobs j WHERE j.level_hash = l.hash AND " + strings.Join(all, " AND ") + " LIMIT 1) lb ON true"
	}
	if f.Kind != "" {
		w.add("l.kind = ?", f.Kind)
	}
	if f.Verdict != "" {
		w.add("l.verdict = ?", f.Verdict)
	}
	if f.After != nil {
		w.add("("+d+"."+at+", "+d+"."+key+") < (?, ?)", f.After.At, f.After.Key)
	}
	return `SELECT l.hash, l.kind, l.created_at, r.verdict, r.value, r.optimal, r.solver_version, r.job_id, r.created_at
		FROM levels l` + join + `
		LEFT JOIN results r ON r.job_id = l.result_job_id
		` + w.sql() + `
		ORDER BY ` + d + `.` + at + ` DESC, ` + d + `.` + key + ` DESC
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

// LevelResultItem is one result a level has had, and its job.
type LevelResultItem struct {
	JobID int64
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
