package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// Job is a stored job with its result and progress (the API maps it to
// wire.Job).
type Job struct {
	ID          int64
	ProjectID   int64
	BatchID     *int64
	Seq         *int32
	LevelHash   string
	Kind        string
	State       jobtype.State
	Priority    jobtype.Priority
	Budget      solver.Budget
	Playouts    *int // the job's difficulty option; nil: the worker's default
	Labels      json.RawMessage
	Attempts    int32
	MaxAttempts int32
	Cached      bool
	Error       *string
	CreatedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
	Progress    *Progress
	Result      *Result
}

// Progress is what the last checkpoint of a running job says.
type Progress struct {
	Nodes          int64
	Checkpoints    int32
	LastCheckpoint time.Time
	Best           *solver.Best // the search's best line so far; nil if it keeps none
}

// JobParams are the arguments of CreateJob.
type JobParams struct {
	Level         Level
	Priority      jobtype.Priority
	Budget        solver.Budget
	Playouts      *int // per player, of the difficulty figures: nil the worker's default, 0 none (cachedFor)
	Labels        json.RawMessage
	MaxAttempts   int
	SolverVersion string // a definitive result of this version (in the project) completes the job at once
	Project       int64  // 0: DefaultProject
}

// CreateJob stores the level (once per hash) and a job for it. When the
// level already has a definitive result from the same solver version, the
// job is created done and cached, with a copy of that result.
func (s *Store) CreateJob(ctx context.Context, p JobParams) (Job, error) {
	// One statement, so one round trip and no BEGIN/COMMIT: an interactive
	// job's POST waits on it (docs/queries.md, "Yielding", has the figures).
	// The CTEs see the snapshot from before the statement, so the cached
	// lookup cannot see the level this statement inserts, and need not:
	// a new level has no results.
	var id int64
	err := s.pool.QueryRow(ctx, `
		WITH lv AS (
			INSERT INTO levels (hash, kind, body) VALUES ($1, $2, $9) ON CONFLICT (hash) DO NOTHING
		), src AS (
			SELECT r.job_id, r.verdict FROM results r
			WHERE r.level_hash = $1 AND r.solver_version = $10 AND r.verdict IN `+definitiveVerdicts+`
				AND `+cachedFor("$11")+` AND `+sameProject("$12")+`
			ORDER BY r.difficulty IS NULL, r.job_id LIMIT 1
		), j AS (
			INSERT INTO jobs
			(level_hash, kind, priority, max_nodes, max_ms, labels, max_attempts, state, cached, finished_at, verdict,
				difficulty_playouts, project_id)
			SELECT $1, $2, $3, $4, $5, $6, $7,
				CASE WHEN src.job_id IS NOT NULL THEN 'done'::job_state ELSE 'queued' END, src.job_id IS NOT NULL,
				CASE WHEN src.job_id IS NOT NULL THEN now() END, src.verdict, $8, $12
			FROM (SELECT) one LEFT JOIN src ON true
			RETURNING id
		), copied AS (
			`+copyResultSQL("j.id")+`, j, src WHERE r.job_id = src.job_id
		)
		SELECT id FROM j`,
		p.Level.Hash, p.Level.Kind, p.Priority, nullIfZero(p.Budget.MaxNodes), nullIfZero(p.Budget.MaxMS),
		nullJSON(p.Labels), p.MaxAttempts, p.Playouts, string(p.Level.Body), p.SolverVersion,
		wantsFigures(p.Playouts), projectOr(p.Project)).Scan(&id)
	if err != nil {
		return Job{}, fmt.Errorf("store: create job: %w", err)
	}
	return s.GetJob(ctx, id)
}

// cachedFor is the condition on results r that a cached result must meet
// to complete a job at once; want is the parameter saying whether the job
// wants difficulty figures. A result without figures because its own job
// asked for none (a bulk job, say) does not serve a job that wants them:
// the level is solved again and rated. A result without figures for any
// other reason (a kind or mode that is not rated, a rating that ran out of
// time) serves every job, or unrated levels would never be cached. A
// cached result keeps the figures it was stored with, whatever number of
// playouts the new job asked for (the figures' "playouts" says).
func cachedFor(want string) string {
	return `(NOT ` + want + ` OR r.difficulty IS NOT NULL
		OR (SELECT sj.difficulty_playouts FROM jobs sj WHERE sj.id = r.job_id) IS DISTINCT FROM 0)`
}

// sameProject is the condition on results r that its job is of the
// project param: the cache does not cross projects, or a job's "cached"
// would tell one project that another had submitted the level.
func sameProject(param string) string {
	return `(SELECT pj.project_id FROM jobs pj WHERE pj.id = r.job_id) = ` + param
}

// projectOr is the project id to store: p, or DefaultProject for 0.
func projectOr(p int64) int64 {
	if p == 0 {
		return DefaultProject
	}
	return p
}

// wantsFigures says whether a job with this difficulty option wants figures.
func wantsFigures(playouts *int) bool { return playouts == nil || *playouts > 0 }

// copyResultSQL copies result r to the job whose id is jobID (an SQL
// expression); the caller appends further FROM items and the WHERE.
func copyResultSQL(jobID string) string {
	return insertResults + `
	SELECT ` + jobID + `, r.level_hash, r.solver_version, r.verdict, r.value, r.optimal, r.proof, r.plan, r.details, r.stats, r.difficulty
	FROM results r`
}

// GetJob returns a job with its result and progress.
func (s *Store) GetJob(ctx context.Context, id int64) (Job, error) {
	var j Job
	var res resultRow
	var maxNodes, maxMS *int64
	var progNodes *int64
	var progSeq *int32
	var progAt *time.Time
	var progBest *solver.Best
	err := s.pool.QueryRow(ctx, `
		SELECT j.id, j.project_id, j.batch_id, j.seq, j.level_hash, j.kind, j.state, j.priority, j.max_nodes, j.max_ms,
			j.difficulty_playouts, `+jobLabels("j", "b")+`, j.attempts, j.max_attempts, j.cached, j.error, j.created_at, j.started_at, j.finished_at,
			c.nodes, c.seq, c.updated_at, c.best, `+resultColumns("r")+`
		FROM jobs j
		LEFT JOIN batches b ON b.id = j.batch_id
		LEFT JOIN checkpoints c ON c.job_id = j.id
		LEFT JOIN results r ON r.job_id = j.id
		WHERE j.id = $1`, id).Scan(append([]any{&j.ID, &j.ProjectID, &j.BatchID, &j.Seq, &j.LevelHash, &j.Kind, &j.State,
		&j.Priority, &maxNodes, &maxMS, &j.Playouts, &j.Labels, &j.Attempts, &j.MaxAttempts, &j.Cached, &j.Error,
		&j.CreatedAt, &j.StartedAt, &j.FinishedAt, &progNodes, &progSeq, &progAt, &progBest}, res.dest()...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("store: get job: %w", err)
	}
	j.Budget = solver.Budget{MaxNodes: zeroIfNull(maxNodes), MaxMS: zeroIfNull(maxMS)}
	if progNodes != nil {
		j.Progress = &Progress{Nodes: *progNodes, Checkpoints: *progSeq, LastCheckpoint: *progAt, Best: progBest}
	}
	j.Result = res.result()
	return j, nil
}

// startJobsSQL is StartJobs' statement: $1 the job ids, $2 the worker, $3
// how old a dead worker's beat is.
var startJobsSQL = `
	WITH j AS (
		UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now()),
			worker_id = $2
		WHERE id = ANY ($1) AND ` + stillLive + ` AND ` + ownerGone("$2", "$3::interval") + `
		RETURNING id, kind, level_hash, max_nodes, max_ms, difficulty_playouts, attempts, max_attempts,
			coalesce(error, '') AS error
	)
	SELECT j.id, j.kind, l.body, j.max_nodes, j.max_ms, j.difficulty_playouts, j.attempts, j.max_attempts, c.blob, c.seq, j.error
	FROM j ` + levelAndCheckpoint("j")

// levelAndCheckpoint joins job row j (an alias) to its level's body (l)
// and its last checkpoint (c), each read by key (LATERAL … LIMIT 1). As
// plain joins they were planned from the row count the planner guesses
// for a bundle's seq range or an UPDATE … RETURNING: thousands, so a hash
// join that read the whole levels table for every claim (31 ms a claim of
// 64 jobs at 60,000 levels, and growing with every level ever stored).
func levelAndCheckpoint(j string) string {
	return `CROSS JOIN LATERAL (SELECT body FROM levels WHERE hash = ` + j + `.level_hash LIMIT 1) l
		LEFT JOIN LATERAL (SELECT blob, seq FROM checkpoints WHERE job_id = ` + j + `.id LIMIT 1) c ON true`
}

// RunnableJob is what a worker needs to run a job.
type RunnableJob struct {
	ID          int64
	Kind        string
	Body        []byte
	Budget      solver.Budget
	Playouts    *int  // the job's difficulty option; nil: the worker's default
	Attempts    int32 // including this one
	MaxAttempts int32
	Checkpoint  []byte // last checkpoint blob, nil if none
	CheckSeq    int32
	LastError   string // error of the previous attempt, if it recorded one
}

// Owner is the worker process that claims jobs: its id in the workers
// table, and how old a worker's last beat must be for it to count as dead.
type Owner struct {
	ID        string
	DeadAfter time.Duration
}

// StartJobs marks queued or running jobs running, held by o, counts their
// attempts and returns their levels and last checkpoints, in one statement
// (the worker batches the starts of its concurrent handlers). A job in a
// final state, gone, or held by another live worker is missing from the
// map: a retry or duplicate task must not run it again.
func (s *Store) StartJobs(ctx context.Context, ids []int64, o Owner) (map[int64]RunnableJob, error) {
	rows, err := s.pool.Query(ctx, startJobsSQL, ids, o.ID, o.DeadAfter)
	if err != nil {
		return nil, fmt.Errorf("store: start jobs: %w", err)
	}
	jobs, err := collectRunnable(rows)
	if err != nil {
		return nil, fmt.Errorf("store: start jobs: %w", err)
	}
	byID := make(map[int64]RunnableJob, len(jobs))
	for _, r := range jobs {
		byID[r.ID] = r
	}
	return byID, nil
}

func collectRunnable(rows pgx.Rows) ([]RunnableJob, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (RunnableJob, error) {
		var r RunnableJob
		var maxNodes, maxMS *int64
		var seq *int32
		err := row.Scan(&r.ID, &r.Kind, &r.Body, &maxNodes, &maxMS, &r.Playouts, &r.Attempts, &r.MaxAttempts, &r.Checkpoint, &seq, &r.LastError)
		r.Budget = solver.Budget{MaxNodes: zeroIfNull(maxNodes), MaxMS: zeroIfNull(maxMS)}
		if seq != nil {
			r.CheckSeq = *seq
		}
		return r, err
	})
}

// MarkRunning marks a queued job of run's bundle running and counts its
// attempt: a bundle does so for a job once it turns out slow, so that the
// job shows as running and a crash during its search counts against it.
// ErrFenced: the bundle is no longer run's.
func (s *Store) MarkRunning(ctx context.Context, run Run, id int64) error {
	return s.fencedWrite(ctx, "mark running", id, `
		WITH u AS (
			UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now())
			WHERE id = $1 AND `+stateIs(jobtype.Queued)+` AND `+runHolds("$2", "$3")+`
		)
		`+fencedCheck("$2", "$3"), run.Worker, run.Attempt)
}

// MakeSolo takes live jobs out of the bundle that worker me owns: from now
// on each travels in a task of its own, which the dispatcher enqueues once
// it is admitted (a bulk job; admit.go: they go first in their project) or
// at its next round. ErrFenced: some were live but their bundle is no
// longer me's (another worker took it over); the others went solo.
func (s *Store) MakeSolo(ctx context.Context, me string, ids []int64) error {
	return s.makeSolo(ctx, me, ids, "recoveries")
}

// ResumeSolo is MakeSolo for the jobs of a bundle whose delivery was
// interrupted (a retried bundle: its worker lost PostgreSQL, or failed, or
// died in it): like the jobs of a dead worker (TakeOverJobs) they resume
// ahead of all bulk work (recoveries). As fresh bulk jobs they waited for
// admission behind every solo job of their project: after a 15 s
// PostgreSQL outage, 6–20 s (the multi-host suite, issue 30).
func (s *Store) ResumeSolo(ctx context.Context, me string, ids []int64) error {
	return s.makeSolo(ctx, me, ids, "recoveries + 1")
}

// makeSolo is MakeSolo, setting jobs.recoveries to the SQL recoveries.
func (s *Store) makeSolo(ctx context.Context, me string, ids []int64, recoveries string) error {
	var fenced int
	err := s.pool.QueryRow(ctx, `
		WITH u AS (
			UPDATE jobs SET solo = true, enqueued_at = NULL, worker_id = NULL, recoveries = `+recoveries+`
			WHERE id = ANY ($1) AND `+stillLive+` AND `+bundleHolds("$2")+`
		)
		SELECT count(*) FROM jobs WHERE id = ANY ($1) AND `+stillLive+` AND NOT `+bundleHolds("$2"), ids, me).Scan(&fenced)
	if err != nil {
		return fmt.Errorf("store: make jobs solo: %w", err)
	}
	if fenced > 0 {
		return fmt.Errorf("make %d of %d jobs solo: %w", fenced, len(ids), ErrFenced)
	}
	return nil
}

// Finish is the outcome of one solve, for FinishJobs.
type Finish struct {
	JobID         int64
	Run           Run // the run that solved it: the result is stored only if it still holds the job
	SolverVersion string
	Result        solver.Result
}

// FinishJobs stores the results of live jobs and marks them done, in one
// statement (the worker batches the finishes of its concurrent handlers;
// a bundle finishes its jobs together). A job no longer live (finished by
// a duplicate task, or canceled) gets nothing: results are written at most
// once. A job still queued (a bundle's fast job) has its attempt counted
// and its start time set here. Later copies of a level in the same batch
// (dup_of) are completed from a definitive result, or released to run on
// their own. The map says which results were stored; a job id must appear
// once. fenced lists the live jobs whose result was refused because its
// run no longer holds them (see Run): a newer run will store its own.
func (s *Store) FinishJobs(ctx context.Context, fs []Finish) (stored map[int64]bool, fenced []int64, err error) {
	n := len(fs)
	ids, versions, verdicts := make([]int64, n), make([]string, n), make([]string, n)
	workers, runAttempts := make([]string, n), make([]int32, n)
	values, optimal, proofs := make([]*int64, n), make([]bool, n), make([]*string, n)
	plans, details, stats := make([]*string, n), make([]*string, n), make([]string, n)
	elapsed, difficulty := make([]int64, n), make([]*string, n)
	for i, f := range fs {
		a, err := newResultArgs(f.Result)
		if err != nil {
			return nil, nil, err
		}
		workers[i], runAttempts[i] = f.Run.Worker, f.Run.Attempt
		ids[i], versions[i], verdicts[i] = f.JobID, f.SolverVersion, a.verdict
		values[i], optimal[i], proofs[i] = a.value, a.optimal, a.proof
		plans[i], details[i], stats[i] = textOrNil(a.plan), textOrNil(a.details), string(a.stats)
		elapsed[i], difficulty[i] = f.Result.Stats.ElapsedMS, difficultyArg(f.Result)
	}
	rows, err := s.pool.Query(ctx, finishJobsSQL, ids, versions, verdicts, values, optimal, proofs, plans, details, stats, elapsed,
		difficulty, workers, runAttempts)
	if err != nil {
		return nil, nil, fmt.Errorf("store: finish jobs: %w", err)
	}
	stored = make(map[int64]bool, n)
	var id int64
	var ok bool
	_, err = pgx.ForEachRow(rows, []any{&id, &ok}, func() error {
		if ok {
			stored[id] = true
		} else {
			fenced = append(fenced, id)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("store: finish jobs: %w", err)
	}
	if len(fenced) > 0 {
		// The statement's snapshot also shows as live a job that another
		// transaction ended while it ran (a batch canceled, say): read
		// them again, and keep as fenced only those still live.
		rows, err := s.pool.Query(ctx, `SELECT id FROM jobs WHERE id = ANY ($1) AND `+stillLive, fenced)
		if err != nil {
			return nil, nil, fmt.Errorf("store: finish jobs: %w", err)
		}
		if fenced, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
			return nil, nil, fmt.Errorf("store: finish jobs: %w", err)
		}
	}
	return stored, fenced, nil
}

// finishJobsSQL is FinishJobs' statement; its parameters are the columns
// of the finishes, as arrays. It returns the stored jobs (true) and the
// fenced ones (false). (A variable only because runHolds builds part of
// it; nothing writes it.)
var finishJobsSQL = `
		WITH i AS (
			SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bool[], $6::text[],
				$7::text[], $8::text[], $9::text[], $10::bigint[], $11::text[])
				AS i (id, version, verdict, value, optimal, proof, plan, details, stats, elapsed_ms, difficulty)
		), j AS (
			-- The arrays again rather than the CTE i: joined to a CTE, the
			-- planner misjudged the rows and scanned every job (a hash
			-- join, 20 ms a statement on 20,000 jobs); from unnest it
			-- looks each job up by key.
			UPDATE jobs SET state = 'done', finished_at = now(), error = NULL, verdict = u.verdict,
				attempts = CASE WHEN jobs.state = 'queued' THEN jobs.attempts + 1 ELSE jobs.attempts END,
				started_at = coalesce(jobs.started_at, now() - u.elapsed_ms * interval '1 millisecond')
			FROM unnest($1::bigint[], $3::text[], $10::bigint[], $12::text[], $13::int[])
				AS u (id, verdict, elapsed_ms, worker, attempt)
			-- jobs.id = ANY: an index condition, so that statistics that
			-- saw few jobs never make the planner scan them all.
			WHERE jobs.id = u.id AND jobs.id = ANY ($1::bigint[]) AND ` + stillLive + `
				AND ` + runHolds("u.worker", "u.attempt") + `
			RETURNING jobs.id, jobs.level_hash
		), f AS (
			-- Live jobs this call did not finish: their run no longer holds
			-- them. Read only when some job was not finished. (A job that
			-- another transaction ended after this statement's snapshot
			-- shows here too; FinishJobs reads these again.)
			SELECT jobs.id FROM jobs
			WHERE jobs.id = ANY ($1::bigint[]) AND ` + stillLive + ` AND jobs.id NOT IN (SELECT id FROM j)
				AND (SELECT count(*) FROM j) < cardinality($1::bigint[])
		), r AS (
			` + insertResults + `
			SELECT j.id, j.level_hash, i.version, i.verdict, i.value, i.optimal, i.proof,
				i.plan::jsonb, i.details::jsonb, i.stats::jsonb, i.difficulty::jsonb
			FROM j JOIN i ON i.id = j.id
			ON CONFLICT (job_id) DO NOTHING
		), waiting AS MATERIALIZED (
			-- The jobs waiting on a copy among this call's, found by one scan
			-- of jobs_dup_of for all the ids (the state only a filter, see
			-- stillLive); MATERIALIZED, or the planner folds it into the
			-- UPDATE below and probes the index once per finished job with
			-- the whole array ($1) in each probe: 9 ms of a 34 ms statement
			-- of 256 jobs, though no job was waiting.
			SELECT jobs.id, jobs.dup_of FROM jobs
			WHERE jobs.dup_of = ANY($1::bigint[]) AND (jobs.state = 'queued') IS TRUE
		), d AS (
			UPDATE jobs SET dup_of = NULL,
				state = CASE WHEN i.verdict IN ` + definitiveVerdicts + ` THEN 'done'::job_state ELSE jobs.state END,
				cached = i.verdict IN ` + definitiveVerdicts + `,
				verdict = CASE WHEN i.verdict IN ` + definitiveVerdicts + ` THEN i.verdict END,
				finished_at = CASE WHEN i.verdict IN ` + definitiveVerdicts + ` THEN now() END,
				solo = true -- released to run: its bundle may be gone
			FROM waiting w JOIN i ON i.id = w.dup_of JOIN j ON j.id = w.dup_of
			-- Checked again on the row updated: another transaction may
			-- have changed it since this statement's snapshot.
			WHERE jobs.id = w.id AND jobs.dup_of = w.dup_of AND (jobs.state = 'queued') IS TRUE
			RETURNING jobs.id, jobs.level_hash, i.id AS src
		), dr AS (
			` + insertResults + `
			SELECT d.id, d.level_hash, i.version, i.verdict, i.value, i.optimal, i.proof,
				i.plan::jsonb, i.details::jsonb, i.stats::jsonb, i.difficulty::jsonb
			FROM d JOIN i ON i.id = d.src
			WHERE i.verdict IN ` + definitiveVerdicts + `
			ON CONFLICT (job_id) DO NOTHING
		)
		SELECT id, true FROM j UNION ALL SELECT id, false FROM f`

func textOrNil(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

// FailJob records err on a job that run holds. When final, the job ends
// failed and its waiting duplicates are released to run on their own;
// otherwise it stays running for asynq's retry, held by no worker so that
// the retry may start it anywhere. ErrFenced: run no longer holds the job.
func (s *Store) FailJob(ctx context.Context, run Run, id int64, msg string, final bool) error {
	return s.fencedWrite(ctx, "fail", id, `
		WITH j AS (
			UPDATE jobs SET error = $2, worker_id = NULL,
				state = CASE WHEN $3 THEN 'failed'::job_state ELSE state END,
				finished_at = CASE WHEN $3 THEN now() END
			WHERE id = $1 AND `+stillLive+` AND `+runHolds("$4", "$5")+`
			RETURNING id
		), d AS (
			UPDATE jobs SET dup_of = NULL WHERE $3 AND dup_of IN (SELECT id FROM j)
		)
		`+fencedCheck("$4", "$5"), msg, final, run.Worker, run.Attempt)
}

// CancelJob cancels a queued or running job. It returns the job's state
// afterwards; canceling a final job changes nothing.
func (s *Store) CancelJob(ctx context.Context, id int64) (jobtype.State, error) {
	var state jobtype.State
	err := s.pool.QueryRow(ctx, `
		WITH j AS (
			UPDATE jobs SET state = 'canceled', finished_at = now()
			WHERE id = $1 AND `+stillLive+`
			RETURNING id
		), d AS (
			UPDATE jobs SET dup_of = NULL WHERE dup_of IN (SELECT id FROM j)
		)
		SELECT CASE WHEN EXISTS (SELECT 1 FROM j) THEN 'canceled' ELSE state::text END
		FROM jobs WHERE id = $1`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: cancel job %d: %w", id, err)
	}
	return state, nil
}

// JobState returns the state of a job.
func (s *Store) JobState(ctx context.Context, id int64) (jobtype.State, error) {
	var state jobtype.State
	err := s.pool.QueryRow(ctx, `SELECT state FROM jobs WHERE id = $1`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: job state: %w", err)
	}
	return state, nil
}

// RequeueJob hands a running job that run holds back (graceful
// shutdown): it becomes queued, held by no worker, and the attempt that
// was interrupted on purpose is not counted. Having run, it resumes in the
// resumed queue, ahead of jobs never started (recoveries, see
// LiveJob.Resumed). ErrFenced: run no longer holds the job.
func (s *Store) RequeueJob(ctx context.Context, run Run, id int64) error {
	return s.fencedWrite(ctx, "requeue", id, `
		WITH u AS (
			UPDATE jobs SET state = 'queued', attempts = greatest(attempts - 1, 0), enqueued_at = NULL,
				worker_id = NULL, recoveries = recoveries + 1
			WHERE id = $1 AND `+stateIs(jobtype.Running)+` AND `+runHolds("$2", "$3")+`
		)
		`+fencedCheck("$2", "$3"), run.Worker, run.Attempt)
}

func nullIfZero(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func zeroIfNull(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

func nullJSON(b json.RawMessage) *string {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	s := string(b)
	return &s
}

// JobCount is the number of jobs of one kind in one state.
type JobCount struct {
	Kind  string
	State jobtype.State
	Count int64
}

// JobCounts counts all jobs by kind and state (for metrics).
func (s *Store) JobCounts(ctx context.Context) ([]JobCount, error) {
	rows, err := s.pool.Query(ctx, `SELECT kind, state::text, count(*) FROM jobs GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("store: job counts: %w", err)
	}
	counts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[JobCount])
	if err != nil {
		return nil, fmt.Errorf("store: job counts: %w", err)
	}
	return counts, nil
}
