package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Figures summarise a set of jobs (one batch, or a time window) overall
// and per kind.
type Figures struct {
	Jobs     int
	States   map[string]int
	Verdicts map[string]int
	Cached   int
	SolveMS  Percentiles // of jobs that were solved, not cached
	Nodes    Percentiles
	Kinds    map[string]*KindFigures
}

// KindFigures are the figures of one kind.
type KindFigures struct {
	Jobs     int
	States   map[string]int
	Verdicts map[string]int
	Cached   int
	SolveMS  Percentiles
	Nodes    Percentiles
}

// Percentiles of a distribution; P99 is left out for nodes.
type Percentiles struct {
	P50 float64
	P95 float64
	P99 float64
}

// ReportLevel is one level singled out by a report.
type ReportLevel struct {
	Seq       *int32
	JobID     int64
	LevelHash string
	Kind      string
	Proof     string
	Value     *int64
	Details   json.RawMessage
	Plan      json.RawMessage
	Error     string
	ElapsedMS float64
	Nodes     float64
	Score     *int
}

// Report summarises one batch: its figures and the levels worth a look.
type Report struct {
	BatchID int64
	Figures
	Unsolvable []ReportLevel
	Unknown    []ReportLevel
	Failed     []ReportLevel
	Slowest    []ReportLevel
	Difficulty Difficulty
	// ListLimit caps each list; Truncated says a list was cut.
	ListLimit int
	Truncated bool
}

// reportListLimit caps the unsolvable, unknown and failed lists.
const reportListLimit = 1000

// BatchReport summarises a batch: counts by verdict and kind, timing
// percentiles, the unsolvable levels with their proofs, the unknown ones
// with their best partial result, failures, and the 10 slowest levels. It
// reads the batch's rollups (rollups.go) and, for the lists, the index of
// its unsolvable, unknown and failed jobs (jobs_report) and its ten
// slowest and hardest (batch_tops): never every job of the batch.
func (s *Store) BatchReport(ctx context.Context, id int64) (Report, error) {
	if _, err := s.GetBatch(ctx, id); err != nil {
		return Report{}, err
	}
	rep := Report{BatchID: id, ListLimit: reportListLimit}
	r, err := s.batchRollup(ctx, id)
	if err != nil {
		return Report{}, err
	}
	rep.Figures = r.figures()
	lists := []struct {
		dst   *[]ReportLevel
		from  string
		where string
		order string
		limit int
	}{
		{&rep.Unsolvable, "jobs j", "j.batch_id = $1 AND j.verdict = 'unsolvable'", "j.seq", reportListLimit},
		{&rep.Unknown, "jobs j", "j.batch_id = $1 AND j.verdict = 'unknown'", "j.seq", reportListLimit},
		{&rep.Failed, "jobs j", "j.batch_id = $1 AND j.state = 'failed'", "j.seq", reportListLimit},
		{&rep.Slowest, topsOf("slowest", 10), "true", "t.k1 DESC, t.k2, t.seq", 10},
	}
	for _, l := range lists {
		levels, err := s.reportLevels(ctx, l.from, l.where, l.order, l.limit+1, id)
		if err != nil {
			return Report{}, err
		}
		if len(levels) > l.limit {
			levels = levels[:l.limit]
			rep.Truncated = rep.Truncated || l.limit == reportListLimit
		}
		*l.dst = levels
	}
	if rep.Difficulty, err = s.batchDifficulty(ctx, id, r); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// topsOf is the FROM of a report list read from a batch's batch_tops
// (the batch is $1): its first n entries of list, in their order, each
// joined to its job by key.
func topsOf(list string, n int) string {
	return fmt.Sprintf(`(SELECT job_id, k1, k2, seq FROM batch_tops WHERE batch_id = $1 AND list = '%s'
			ORDER BY k1 DESC, k2, seq LIMIT %d) t
		CROSS JOIN LATERAL (SELECT * FROM jobs WHERE id = t.job_id LIMIT 1) j`, list, n+1)
}

// Stats are the figures of the jobs created in [Since, Until).
type Stats struct {
	Since time.Time
	Until time.Time
	Figures
}

// Stats returns the figures of every job created in [since, until), from
// the hourly rollups and, for the edges of the window that do not fall on
// the hour, the jobs themselves.
//
// With projects not nil, the figures are those of the batches (and
// generations) of those projects created in the window, read from the
// batches' counters (job_counts, batch_hist), and of those projects' jobs
// created in the window outside a batch, read from the jobs and results
// themselves as the window's edges are.
func (s *Store) Stats(ctx context.Context, since, until time.Time, projects []int64) (Stats, error) {
	if projects != nil {
		r, err := s.projectRollup(ctx, since, until, projects)
		if err != nil {
			return Stats{}, err
		}
		return Stats{Since: since, Until: until, Figures: r.figures()}, nil
	}
	r, err := s.windowRollup(ctx, since, until)
	if err != nil {
		return Stats{}, err
	}
	return Stats{Since: since, Until: until, Figures: r.figures()}, nil
}

func (s *Store) reportLevels(ctx context.Context, from, where, order string, limit int, args ...any) ([]ReportLevel, error) {
	rows, err := s.pool.Query(ctx, fmt.Sprintf(`
		SELECT j.seq, j.id, j.level_hash, j.kind, coalesce(r.proof, ''), r.value, r.details,
			CASE WHEN r.verdict = 'unknown' THEN r.plan END, coalesce(j.error, ''),
			coalesce((r.stats->>'elapsed_ms')::float8, 0), coalesce((r.stats->>'nodes')::float8, 0),
			(r.difficulty->>'score')::int
		FROM %s LEFT JOIN results r ON r.job_id = j.id
		WHERE %s ORDER BY %s LIMIT %d`, from, where, order, limit), args...)
	if err != nil {
		return nil, fmt.Errorf("store: report levels: %w", err)
	}
	defer rows.Close()
	levels := []ReportLevel{}
	for rows.Next() {
		var l ReportLevel
		if err := rows.Scan(&l.Seq, &l.JobID, &l.LevelHash, &l.Kind, &l.Proof, &l.Value, &l.Details, &l.Plan,
			&l.Error, &l.ElapsedMS, &l.Nodes, &l.Score); err != nil {
			return nil, fmt.Errorf("store: report levels: %w", err)
		}
		levels = append(levels, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: report levels: %w", err)
	}
	return levels, nil
}
