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
	// Projects limits the jobs to these projects; nil: every project.
	Projects  []int64
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
// Without a label filter the page is read in order from the index of its
// most selective filter (migrations/00005). A label filter k:v matches the
// jobs with an own label k:v and the jobs of the batches labelled k:v that
// have no own label k (a job's labels are its batch's with its own on top,
// migrations/00010). Each source yields its rows in page order, about
// `limit` index entries whatever the table size, and the page is the first
// `limit` of the two merged:
//
//   - own labels from job_labels (migrations/00009). Its rows carry the
//     job's created_at, kind and verdict, so the page's other conditions
//     (cursor, time window, kind, verdict) and its order are put on them:
//     job_labels_list or job_labels_kind_verdict yields the matching jobs
//     in page order, each joined to its job by primary key. They are not
//     repeated on jobs, nor is the order a created_at equality between the
//     two, because the planner would count such a condition twice and
//     misjudge every plan.
//   - batch labels from batch_labels, newest batch first, each batch's
//     jobs in page order from jobs_batch_seq (a batch's jobs share its
//     created_at and their ids follow their seq), so the walk stops once
//     the page is full. The branch is
//     ordered by the batch only: a nested loop emits each batch's jobs in
//     the order of its LIMITed inner query, and the merge below sorts the
//     branch's at most `limit` rows again; ordering it by the job as well
//     made the planner sort every match of every batch.
//
// Further labels filter the job rows the page reads anyway (containment in
// the job's labels): a join of their rows let the planner hash-join every
// job of both labels and sort them. The rarest label should come first.
func JobsQuery(f JobFilter) (string, []any) {
	limit := strconv.Itoa(limitOf(f.Limit))
	out := `SELECT j.id, j.batch_id, j.seq, j.level_hash, j.kind, j.state::text, j.priority, ` + jobLabels("j", "b") + `,
			j.cached, j.verdict, r.value, r.optimal, j.error, j.created_at, j.finished_at`
	if len(f.Labels) == 0 {
		var w where
		jobConds(&w, f, "j", "j")
		w.window("j", f.Since, f.Until, f.After, "id")
		order := "j.created_at DESC, j.id DESC"
		if f.BatchID != 0 {
			// A batch's jobs share its created_at, and their ids follow
			// their seq: jobs_batch_seq yields them in page order.
			order = "j.seq DESC"
			if f.After != nil {
				w.add("j.seq < coalesce((SELECT c.seq FROM jobs c WHERE c.id = ? AND c.batch_id = ?), 2147483647)",
					f.After.ID, f.BatchID)
			}
		}
		return out + `
		FROM jobs j
		LEFT JOIN batches b ON b.id = j.batch_id
		LEFT JOIN results r ON r.job_id = j.id
		` + w.sql() + `
		ORDER BY ` + order + `
		LIMIT ` + limit, w.args
	}
	first := f.Labels[0]

	var own where
	own.add("l0.key = ? AND l0.value = ?", first.Key, first.Value)
	jobConds(&own, f, "j", "l0")
	extraLabels(&own, f.Labels[1:], "j", "b")
	own.window("l0", f.Since, f.Until, f.After, "job_id")
	ownJoin := ""
	if len(f.Labels) > 1 {
		ownJoin = "\n\t\t\tLEFT JOIN batches b ON b.id = j.batch_id"
	}

	inner := where{args: own.args}
	inner.add("j.batch_id = bl.batch_id AND (j.labels -> ?) IS NULL", first.Key)
	jobConds(&inner, f, "j", "j")
	extraLabels(&inner, f.Labels[1:], "j", "b")
	if f.After != nil {
		// The time window and the cursor are on the batch (its jobs share
		// its created_at); within the cursor's batch, jobs before it by
		// seq, which jobs_batch_seq yields as a range.
		inner.add("(bl.created_at < ? OR j.id < ?)", f.After.At, f.After.ID)
		inner.add("j.seq < coalesce((SELECT c.seq FROM jobs c WHERE c.id = ? AND c.batch_id = bl.batch_id), 2147483647)",
			f.After.ID)
	}
	batch := where{args: inner.args}
	batch.add("bl.key = ? AND bl.value = ?", first.Key, first.Value)
	if f.BatchID != 0 {
		batch.add("bl.batch_id = ?", f.BatchID)
	}
	if !f.Since.IsZero() {
		batch.add("bl.created_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		batch.add("bl.created_at < ?", f.Until)
	}
	if f.After != nil {
		batch.add("bl.created_at <= ?", f.After.At)
	}

	return out + `
		FROM (
			(SELECT j.id, l0.created_at AS at FROM job_labels l0
			JOIN jobs j ON j.id = l0.job_id` + ownJoin + `
			` + own.sql() + `
			ORDER BY l0.created_at DESC, l0.job_id DESC
			LIMIT ` + limit + `)
			UNION ALL
			(SELECT j.id, j.created_at FROM batch_labels bl
			JOIN batches b ON b.id = bl.batch_id
			CROSS JOIN LATERAL (
				SELECT j.id, j.created_at FROM jobs j
				` + inner.sql() + `
				ORDER BY j.seq DESC
				LIMIT ` + limit + `
			) j
			` + batch.sql() + `
			ORDER BY bl.created_at DESC, bl.batch_id DESC
			LIMIT ` + limit + `)
			ORDER BY 2 DESC, 1 DESC
			LIMIT ` + limit + `
		) p
		CROSS JOIN LATERAL (SELECT * FROM jobs j WHERE j.id = p.id LIMIT 1) j
		LEFT JOIN batches b ON b.id = j.batch_id
		LEFT JOIN results r ON r.job_id = j.id
		ORDER BY p.at DESC, p.id DESC
		LIMIT ` + limit, batch.args
}

// jobConds adds the job filters other than labels and the time window;
// kind and verdict are put on alias kv (the job, or its first label's row,
// which carries both).
func jobConds(w *where, f JobFilter, j, kv string) {
	if f.Projects != nil {
		w.add(j+".project_id = ANY (?)", f.Projects)
	}
	if f.BatchID != 0 {
		w.add(j+".batch_id = ?", f.BatchID)
	}
	if f.Kind != "" {
		w.add(kv+".kind = ?", f.Kind)
	}
	if f.State != "" {
		w.add(j+".state = ?::job_state", f.State)
	}
	if f.Verdict != "" {
		w.add(kv+".verdict = ?", f.Verdict)
	}
	if f.LevelHash != "" {
		w.add(j+".level_hash = ?", f.LevelHash)
	}
}

// extraLabels adds a containment condition on the labels of job j (batch
// b) for each label.
func extraLabels(w *where, labels []Label, j, b string) {
	for _, lb := range labels {
		w.add("("+jobLabels(j, b)+") @> ?::jsonb", lb.json())
	}
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
	Projects []int64 // nil: every project
	Labels   []Label
	Since    time.Time
	Until    time.Time
	After    *Position
	Limit    int
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
	if f.Projects != nil {
		w.add("b.project_id = ANY (?)", f.Projects)
	}
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
	// Projects limits the levels to those a job of these projects has,
	// each with its newest definitive result among those jobs
	// (scopedLevelsQuery); nil: every level.
	Projects []int64
	Kind     string
	Verdict  string  // of the level's newest definitive result
	Labels   []Label // some job of the level has every one
	After    *Position
	Limit    int
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
// Every level with a definitive result has a level_verdicts row: its
// newest definitive result's verdict and job id, maintained when results
// are stored (migrations/00010), so verdict= reads level_verdicts_list in
// page order and each listed level joins its result by primary key.
//
// label=k:v lists the levels having a job labelled k:v, merged from two
// sources that each yield their rows in page order (level created_at,
// hash), as JobsQuery does:
//
//   - level_labels, one row per label and level, written for a job's own
//     labels and for the labels of a batch on the levels that existed
//     before the batch. The first label's rows carry the cursor and the
//     order, each joined to its level by primary key.
//   - the levels a batch labelled k:v created: they share the batch's
//     created_at (one transaction), so for each such batch, newest first,
//     levels_list_created yields them in page order, each checked to have
//     a job of that batch without an own label k. Writing their
//     level_labels rows instead cost a 100,000-level batch 8 s of its POST.
//
// A level may come from both (a batch reused it, or a job of it has the
// label of its own): the union drops the copy. With several labels one job
// must carry them all: a probe of each level's jobs (jobs_level, a hash index)
// checks that; the rarest label should come first.
func LevelsQuery(f LevelFilter) (string, []any) {
	if f.Projects != nil {
		return scopedLevelsQuery(f)
	}
	limit := strconv.Itoa(limitOf(f.Limit))
	out := `SELECT l.hash, l.kind, l.created_at, r.verdict, r.value, r.optimal, r.solver_version, r.job_id, r.created_at`
	if len(f.Labels) == 0 {
		var w where
		join, d := "\n\t\tLEFT JOIN level_verdicts lv ON lv.hash = l.hash", "l"
		if f.Verdict != "" {
			// The verdicts table, ordered as the page, drives the query.
			join, d = "\n\t\tJOIN level_verdicts lv ON lv.hash = l.hash", "lv"
			w.add("lv.verdict = ?", f.Verdict)
		}
		if f.Kind != "" {
			w.add(d+".kind = ?", f.Kind)
		}
		if f.After != nil {
			w.add("("+d+".created_at, "+d+".hash) < (?, ?)", f.After.At, f.After.Key)
		}
		return out + `
		FROM levels l` + join + `
		LEFT JOIN results r ON r.job_id = lv.result_job_id
		` + w.sql() + `
		ORDER BY ` + d + `.created_at DESC, ` + d + `.hash DESC
		LIMIT ` + limit, w.args
	}
	first := f.Labels[0]

	var own where
	own.add("ll0.key = ? AND ll0.value = ?", first.Key, first.Value)
	levelConds(&own, f, "l")
	if f.After != nil {
		own.add("(ll0.level_created_at, ll0.level_hash) < (?, ?)", f.After.At, f.After.Key)
	}
	ownJoin := ""
	if f.Kind != "" {
		ownJoin = "\n\t\t\tJOIN levels l ON l.hash = ll0.level_hash"
	}
	ownJoin += levelJoins(&own, f, "ll0.level_hash")

	inner := where{args: own.args}
	inner.add("l.created_at = bl.created_at")
	levelConds(&inner, f, "l")
	if f.After != nil {
		inner.add("(l.created_at, l.hash) < (?, ?)", f.After.At, f.After.Key)
	}
	inner.add(`EXISTS (SELECT 1 FROM jobs j WHERE j.level_hash = l.hash AND j.batch_id = bl.batch_id
					AND (j.labels -> ?) IS NULL`+extraJobLabels(&inner, f.Labels[1:], "j", "b")+`)`, first.Key)
	innerJoin := "\n\t\t\t\tLEFT JOIN level_verdicts lv ON lv.hash = l.hash"

	batch := where{args: inner.args}
	// Only batches that created levels have any to find here (index
	// batch_labels_creators).
	batch.add("bl.key = ? AND bl.value = ? AND bl.creates_levels", first.Key, first.Value)
	if f.After != nil {
		batch.add("bl.created_at <= ?", f.After.At)
	}

	return out + `
		FROM (
			(SELECT ll0.level_hash AS hash, ll0.level_created_at AS at FROM level_labels ll0` + ownJoin + `
			` + own.sql() + `
			ORDER BY ll0.level_created_at DESC, ll0.level_hash DESC
			LIMIT ` + limit + `)
			UNION
			(SELECT l.hash, l.created_at FROM batch_labels bl
			JOIN batches b ON b.id = bl.batch_id
			CROSS JOIN LATERAL (
				SELECT l.hash, l.created_at FROM levels l` + innerJoin + `
				` + inner.sql() + `
				ORDER BY l.created_at DESC, l.hash DESC
				LIMIT ` + limit + `
			) l
			` + batch.sql() + `
			ORDER BY bl.created_at DESC, bl.batch_id DESC
			LIMIT ` + limit + `)
			ORDER BY 2 DESC, 1 DESC
			LIMIT ` + limit + `
		) p
		CROSS JOIN LATERAL (SELECT * FROM levels l WHERE l.hash = p.hash LIMIT 1) l
		LEFT JOIN level_verdicts lv ON lv.hash = l.hash
		LEFT JOIN results r ON r.job_id = lv.result_job_id
		ORDER BY p.at DESC, p.hash DESC
		LIMIT ` + limit, batch.args
}

// scopedLevelsQuery is LevelsQuery for the levels of some projects, so
// that nothing of another project shows (its labels, its job ids, that it
// submitted the level, or when): a level's created_at is its first job's
// among those projects (jobs_level, a hash index), labels match those projects'
// jobs, and its result is the newest definitive one among their jobs. It
// reads every level and sorts the matches: a cost that grows with all
// levels, not with the project's (no index leads from a project to its
// levels; see docs/service.md, "Projects and tokens").
func scopedLevelsQuery(f LevelFilter) (string, []any) {
	var w where
	w.args = append(w.args, f.Projects)
	w.conds = append(w.conds, "fj.at IS NOT NULL")
	if len(f.Labels) > 0 {
		w.conds = append(w.conds, `EXISTS (SELECT 1 FROM jobs j LEFT JOIN batches b ON b.id = j.batch_id
			WHERE j.level_hash = l.hash AND j.project_id = ANY ($1)`+extraJobLabels(&w, f.Labels, "j", "b")+`)`)
	}
	if f.Kind != "" {
		w.add("l.kind = ?", f.Kind)
	}
	if f.Verdict != "" {
		w.add("r.verdict = ?", f.Verdict)
	}
	if f.After != nil {
		w.add("(fj.at, l.hash) < (?, ?)", f.After.At, f.After.Key)
	}
	return `SELECT l.hash, l.kind, fj.at, r.verdict, r.value, r.optimal, r.solver_version, r.job_id, r.created_at
		FROM levels l
		CROSS JOIN LATERAL (SELECT min(j.created_at) AS at FROM jobs j
			WHERE j.level_hash = l.hash AND j.project_id = ANY ($1)) fj
		LEFT JOIN LATERAL (` + projectResult("l.hash", "$1") + `) r ON true
		` + w.sql() + `
		ORDER BY fj.at DESC, l.hash DESC
		LIMIT ` + strconv.Itoa(limitOf(f.Limit)), w.args
}

// projectResult selects the newest definitive result of the level whose
// hash is the SQL hash among the jobs of the projects param (nil: all).
func projectResult(hash, projects string) string {
	return `SELECT r.* FROM results r
			WHERE r.level_hash = ` + hash + ` AND r.verdict IN ` + definitiveVerdicts + `
				AND (` + projects + `::bigint[] IS NULL
					OR (SELECT pj.project_id FROM jobs pj WHERE pj.id = r.job_id) = ANY (` + projects + `))
			ORDER BY r.created_at DESC, r.job_id DESC LIMIT 1`
}

// levelConds adds the kind and verdict filters of a level list on levels
// l and level_verdicts lv.
func levelConds(w *where, f LevelFilter, l string) {
	if f.Kind != "" {
		w.add(l+".kind = ?", f.Kind)
	}
	if f.Verdict != "" {
		w.add("lv.verdict = ?", f.Verdict)
	}
}

// levelJoins returns the joins that the own-label source of a level list
// needs besides its label rows, for the level whose hash is the SQL hash:
// its verdict, and for several labels a probe of its jobs for one that
// carries them all. A LATERAL … LIMIT 1 rather than EXISTS: the planner
// turns an EXISTS into a semi-join over every level, then sorts.
func levelJoins(w *where, f LevelFilter, hash string) string {
	join := ""
	if f.Verdict != "" {
		join += "\n\t\t\tJOIN level_verdicts lv ON lv.hash = " + hash
	}
	if len(f.Labels) > 1 {
		join += "\n\t\t\tJOIN LATERAL (SELECT 1 FROM jobs j LEFT JOIN batches b ON b.id = j.batch_id WHERE j.level_hash = " +
			hash + extraJobLabels(w, f.Labels, "j", "b") + " LIMIT 1) lb ON true"
	}
	return join
}

// extraJobLabels returns " AND …" conditions that job j (batch b) carries
// each of labels, with their arguments added to w.
func extraJobLabels(w *where, labels []Label, j, b string) string {
	cond := ""
	for _, lb := range labels {
		w.args = append(w.args, lb.json())
		cond += " AND (" + jobLabels(j, b) + ") @> $" + strconv.Itoa(len(w.args)) + "::jsonb"
	}
	return cond
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
func LevelResultsQuery(hash string, projects []int64, after *Position, limit int) (string, []any) {
	var w where
	w.add("r.level_hash = ?", hash)
	if projects != nil {
		w.add("(SELECT pj.project_id FROM jobs pj WHERE pj.id = r.job_id) = ANY (?)", projects)
	}
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
// projects limits the results to those of these projects' jobs (nil: all).
func (s *Store) LevelResults(ctx context.Context, hash string, projects []int64, after *Position, limit int, fn func(LevelResultItem) error) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM levels WHERE hash = $1)`, hash).Scan(&exists); err != nil {
		return fmt.Errorf("store: level results: %w", err)
	}
	if !exists {
		return fmt.Errorf("level %s: %w", hash, ErrNotFound)
	}
	q, args := LevelResultsQuery(hash, projects, after, limit)
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
