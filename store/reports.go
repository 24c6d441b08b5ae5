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
// with their best partial result, failures, and the 10 slowest levels.
func (s *Store) BatchReport(ctx context.Context, id int64) (Report, error) {
	if _, err := s.GetBatch(ctx, id); err != nil {
		return Report{}, err
	}
	rep := Report{BatchID: id, ListLimit: reportListLimit}
	var err error
	if rep.Figures, err = s.figures(ctx, "j.batch_id = $1", id); err != nil {
		return Report{}, err
	}
	lists := []struct {
		dst   *[]ReportLevel
		where string
		order string
		limit int
	}{
		{&rep.Unsolvable, "r.verdict = 'unsolvable'", "j.seq", reportListLimit},
		{&rep.Unknown, "r.verdict = 'unknown'", "j.seq", reportListLimit},
		{&rep.Failed, "j.state = 'failed'", "j.seq", reportListLimit},
		{&rep.Slowest, "r.verdict IS NOT NULL AND NOT j.cached", "(r.stats->>'elapsed_ms')::float8 DESC, j.seq", 10},
	}
	for _, l := range lists {
		levels, err := s.reportLevels(ctx, "j.batch_id = $1 AND "+l.where, l.order, l.limit+1, id)
		if err != nil {
			return Report{}, err
		}
		if len(levels) > l.limit {
			levels = levels[:l.limit]
			rep.Truncated = rep.Truncated || l.limit == reportListLimit
		}
		*l.dst = levels
	}
	if rep.Difficulty, err = s.batchDifficulty(ctx, id); err != nil {
		return Report{}, err
	}
	return rep, nil
}

// Stats are the figures of the jobs created in [Since, Until).
type Stats struct {
	Since time.Time
	Until time.Time
	Figures
}

// Stats returns the figures of every job created in [since, until).
func (s *Store) Stats(ctx context.Context, since, until time.Time) (Stats, error) {
	f, err := s.figures(ctx, "j.created_at >= $1 AND j.created_at < $2", since, until)
	if err != nil {
		return Stats{}, err
	}
	return Stats{Since: since, Until: until, Figures: f}, nil
}

// figures computes Figures over the jobs matching where (a fixed SQL
// condition on jobs j, with args).
func (s *Store) figures(ctx context.Context, where string, args ...any) (Figures, error) {
	f := Figures{States: map[string]int{}, Verdicts: map[string]int{}, Kinds: map[string]*KindFigures{}}
	rows, err := s.pool.Query(ctx, `
		SELECT j.kind, j.state::text, coalesce(r.verdict, ''), j.cached, count(*)
		FROM jobs j LEFT JOIN results r ON r.job_id = j.id
		WHERE `+where+` GROUP BY 1, 2, 3, 4`, args...)
	if err != nil {
		return f, fmt.Errorf("store: figures: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, state, verdict string
		var cached bool
		var n int
		if err := rows.Scan(&kind, &state, &verdict, &cached, &n); err != nil {
			return f, fmt.Errorf("store: figures: %w", err)
		}
		k := f.Kinds[kind]
		if k == nil {
			k = &KindFigures{States: map[string]int{}, Verdicts: map[string]int{}}
			f.Kinds[kind] = k
		}
		f.Jobs += n
		k.Jobs += n
		f.States[state] += n
		k.States[state] += n
		if verdict != "" {
			f.Verdicts[verdict] += n
			k.Verdicts[verdict] += n
		}
		if cached {
			f.Cached += n
			k.Cached += n
		}
	}
	if err := rows.Err(); err != nil {
		return f, fmt.Errorf("store: figures: %w", err)
	}
	rows, err = s.pool.Query(ctx, `
		SELECT j.kind IS NULL, coalesce(j.kind, ''),
			percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY (r.stats->>'elapsed_ms')::float8),
			percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY (r.stats->>'nodes')::float8)
		FROM jobs j JOIN results r ON r.job_id = j.id
		WHERE `+where+` AND NOT j.cached
		GROUP BY ROLLUP (j.kind)`, args...)
	if err != nil {
		return f, fmt.Errorf("store: percentiles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var total bool
		var kind string
		var ms, nodes []float64
		if err := rows.Scan(&total, &kind, &ms, &nodes); err != nil {
			return f, fmt.Errorf("store: percentiles: %w", err)
		}
		if len(ms) < 3 || len(nodes) < 2 { // no solved job (the grand total of nothing)
			continue
		}
		msP := Percentiles{P50: ms[0], P95: ms[1], P99: ms[2]}
		nodesP := Percentiles{P50: nodes[0], P95: nodes[1]}
		if total {
			f.SolveMS, f.Nodes = msP, nodesP
		} else if k := f.Kinds[kind]; k != nil {
			k.SolveMS, k.Nodes = msP, nodesP
		}
	}
	if err := rows.Err(); err != nil {
		return f, fmt.Errorf("store: percentiles: %w", err)
	}
	return f, nil
}

func (s *Store) reportLevels(ctx context.Context, where, order string, limit int, args ...any) ([]ReportLevel, error) {
	rows, err := s.pool.Query(ctx, fmt.Sprintf(`
		SELECT j.seq, j.id, j.level_hash, j.kind, coalesce(r.proof, ''), r.value, r.details,
			CASE WHEN r.verdict = 'unknown' THEN r.plan END, coalesce(j.error, ''),
			coalesce((r.stats->>'elapsed_ms')::float8, 0), coalesce((r.stats->>'nodes')::float8, 0),
			(r.difficulty->>'score')::int
		FROM jobs j LEFT JOIN results r ON r.job_id = j.id
		WHERE %s ORDER BY %s LIMIT %d`, where, order, limit), args...)
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
