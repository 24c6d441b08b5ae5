package store

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// Rollups. A batch's report and /v1/stats read counts (job_counts,
// hour_counts) and histograms (batch_hist, hour_hist) that the statements storing jobs and
// results keep (migrations/00010_write_path.sql, 00012_rollups.sql),
// instead of every job and result of the batch or window. A window's edges
// that do not fall on the hour are read from the jobs themselves.

// histogram counts values by log-scale bucket (puzzled_bucket in
// migrations/00012_rollups.sql): bucket 0 holds values below 1, bucket
// b > 0 those in [2^((b-1)/8), 2^(b/8)).
type histogram map[int]int64

// bucketsPerDoubling is the histogram's resolution: a bucket spans a
// factor 2^(1/8), and a value read at its bucket's geometric middle is
// within 2^(1/16) − 1 = 4.4 % of every value in it.
const bucketsPerDoubling = 8

// bucketOf is puzzled_bucket in Go (tests).
func bucketOf(x float64) int {
	if x < 1 {
		return 0
	}
	return 1 + int(math.Floor(bucketsPerDoubling*math.Log2(x)))
}

// middle is the value a bucket stands for: 0 for bucket 0 (the values are
// counts and whole milliseconds), else its geometric middle.
func middle(b int) float64 {
	if b == 0 {
		return 0
	}
	return math.Exp2((float64(b) - 0.5) / bucketsPerDoubling)
}

// percentile returns the q-quantile (0 ≤ q ≤ 1) as percentile_cont
// defines it, the values at ranks ⌊q·(n−1)⌋ and ⌈q·(n−1)⌉ of the sorted
// values interpolated, each value read as its bucket's middle: within
// 4.4 % of the exact figure. ok is false for an empty histogram.
func (h histogram) percentile(q float64) (v float64, ok bool) {
	var n int64
	buckets := make([]int, 0, len(h))
	for b, c := range h {
		if c > 0 {
			buckets = append(buckets, b)
			n += c
		}
	}
	if n == 0 {
		return 0, false
	}
	slices.Sort(buckets)
	at := func(rank int64) float64 { // the value of the rank-th smallest
		var below int64
		for _, b := range buckets {
			if below += h[b]; rank < below {
				return middle(b)
			}
		}
		return middle(buckets[len(buckets)-1])
	}
	pos := q * float64(n-1)
	lo := int64(math.Floor(pos))
	frac := pos - float64(lo)
	v = at(lo)
	if frac > 0 {
		v += frac * (at(lo+1) - v)
	}
	return v, true
}

// rollup is what the counts and histograms of some jobs add up to, by kind.
type rollup struct {
	counts []countRow
	hists  map[string]map[string]histogram // kind → metric → histogram
}

type countRow struct {
	Kind, State, Verdict string
	Cached               bool
	N                    int64
}

func (r *rollup) addHist(kind, metric string, bucket int, n int64) {
	if r.hists == nil {
		r.hists = map[string]map[string]histogram{}
	}
	if r.hists[kind] == nil {
		r.hists[kind] = map[string]histogram{}
	}
	if r.hists[kind][metric] == nil {
		r.hists[kind][metric] = histogram{}
	}
	r.hists[kind][metric][bucket] += n
}

// figures turns the rollup into Figures.
func (r *rollup) figures() Figures {
	f := Figures{States: map[string]int{}, Verdicts: map[string]int{}, Kinds: map[string]*KindFigures{}}
	for _, c := range r.counts {
		if c.N == 0 {
			continue
		}
		k := f.Kinds[c.Kind]
		if k == nil {
			k = &KindFigures{States: map[string]int{}, Verdicts: map[string]int{}}
			f.Kinds[c.Kind] = k
		}
		n := int(c.N)
		f.Jobs += n
		k.Jobs += n
		f.States[c.State] += n
		k.States[c.State] += n
		if c.Verdict != "" {
			f.Verdicts[c.Verdict] += n
			k.Verdicts[c.Verdict] += n
		}
		if c.Cached {
			f.Cached += n
			k.Cached += n
		}
	}
	all := map[string]histogram{"ms": {}, "nodes": {}}
	for kind, metrics := range r.hists {
		k := f.Kinds[kind]
		for _, m := range []string{"ms", "nodes"} {
			for b, n := range metrics[m] {
				all[m][b] += n
			}
			if k != nil {
				k.SolveMS, k.Nodes = percentiles(metrics["ms"], metrics["nodes"])
			}
		}
	}
	f.SolveMS, f.Nodes = percentiles(all["ms"], all["nodes"])
	return f
}

// percentiles reads the figures' percentiles from the histograms of solve
// times and nodes (zero when there is no solved job).
func percentiles(ms, nodes histogram) (msP, nodesP Percentiles) {
	if _, ok := ms.percentile(0.5); !ok {
		return msP, nodesP
	}
	msP.P50, _ = ms.percentile(0.5)
	msP.P95, _ = ms.percentile(0.95)
	msP.P99, _ = ms.percentile(0.99)
	nodesP.P50, _ = nodes.percentile(0.5)
	nodesP.P95, _ = nodes.percentile(0.95)
	return msP, nodesP
}

// batchRollup reads the counts and histograms of a batch.
func (s *Store) batchRollup(ctx context.Context, id int64) (rollup, error) {
	var r rollup
	rows, err := s.pool.Query(ctx, `
		SELECT kind, state::text, verdict, cached, sum(n)::bigint FROM job_counts WHERE batch_id = $1
		GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0`, id)
	if err != nil {
		return r, fmt.Errorf("store: batch counts: %w", err)
	}
	if r.counts, err = pgx.CollectRows(rows, pgx.RowToStructByPos[countRow]); err != nil {
		return r, fmt.Errorf("store: batch counts: %w", err)
	}
	err = s.readHists(ctx, &r, `SELECT kind, metric, bucket, sum(n)::bigint FROM batch_hist WHERE batch_id = $1 GROUP BY 1, 2, 3`, id)
	return r, err
}

func (s *Store) readHists(ctx context.Context, r *rollup, q string, args ...any) error {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: histograms: %w", err)
	}
	return eachRow(rows, "histograms", func(row pgx.Rows) error {
		var kind, metric string
		var bucket int
		var n int64
		if err := row.Scan(&kind, &metric, &bucket, &n); err != nil {
			return err
		}
		r.addHist(kind, metric, bucket, n)
		return nil
	})
}

// windowRollup reads the counts and histograms of the jobs created in
// [since, until): the whole hours from the hourly rollups, the edges from
// the jobs and results themselves.
func (s *Store) windowRollup(ctx context.Context, since, until time.Time) (rollup, error) {
	var r rollup
	from, to := since.UTC().Truncate(time.Hour), until.UTC().Truncate(time.Hour)
	if from.Before(since) {
		from = from.Add(time.Hour)
	}
	if !from.Before(to) { // no whole hour inside: all of it from the jobs
		return r, s.rawRollup(ctx, &r, createdIn, since, until)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT kind, state::text, verdict, cached, sum(n)::bigint FROM hour_counts WHERE hour >= $1 AND hour < $2
		GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0`, from, to)
	if err != nil {
		return r, fmt.Errorf("store: window counts: %w", err)
	}
	if r.counts, err = pgx.CollectRows(rows, pgx.RowToStructByPos[countRow]); err != nil {
		return r, fmt.Errorf("store: window counts: %w", err)
	}
	if err := s.readHists(ctx, &r, `SELECT kind, metric, bucket, sum(n)::bigint FROM hour_hist
		WHERE hour >= $1 AND hour < $2 AND metric <> 'score' GROUP BY 1, 2, 3`, from, to); err != nil {
		return r, err
	}
	if since.Before(from) {
		if err := s.rawRollup(ctx, &r, createdIn, since, from); err != nil {
			return r, err
		}
	}
	if to.Before(until) {
		if err := s.rawRollup(ctx, &r, createdIn, to, until); err != nil {
			return r, err
		}
	}
	return r, nil
}

// projectRollup reads the counts and histograms of the batches of projects
// created in [since, until), and of their jobs created then outside a
// batch: no counter keeps those by project, so they are read one by one
// (jobs_single, migrations/00037_retention.sql).
func (s *Store) projectRollup(ctx context.Context, since, until time.Time, projects []int64) (rollup, error) {
	var r rollup
	rows, err := s.pool.Query(ctx, `
		SELECT c.kind, c.state::text, c.verdict, c.cached, sum(c.n)::bigint
		FROM batches b JOIN job_counts c ON c.batch_id = b.id
		WHERE b.project_id = ANY ($1) AND b.created_at >= $2 AND b.created_at < $3
		GROUP BY 1, 2, 3, 4 HAVING sum(c.n) <> 0`, projects, since, until)
	if err != nil {
		return r, fmt.Errorf("store: project counts: %w", err)
	}
	if r.counts, err = pgx.CollectRows(rows, pgx.RowToStructByPos[countRow]); err != nil {
		return r, fmt.Errorf("store: project counts: %w", err)
	}
	err = s.readHists(ctx, &r, `SELECT h.kind, h.metric, h.bucket, sum(h.n)::bigint
		FROM batches b JOIN batch_hist h ON h.batch_id = b.id
		WHERE b.project_id = ANY ($1) AND b.created_at >= $2 AND b.created_at < $3 AND h.metric <> 'score'
		GROUP BY 1, 2, 3`, projects, since, until)
	if err != nil {
		return r, err
	}
	return r, s.rawRollup(ctx, &r, loneJobs, since, until, projects)
}

// createdIn is rawRollup's condition for the jobs created in [$1, $2);
// loneJobs for those of the projects $3 outside a batch (batch_id IS NULL
// spelled out, so that the planner may use jobs_single).
const (
	createdIn = `j.created_at >= $1 AND j.created_at < $2`
	loneJobs  = createdIn + ` AND j.project_id = ANY ($3) AND j.batch_id IS NULL`
)

// rawRollup adds the jobs j that meet cond (created in [since, until), and
// whatever cond's further arguments say) to r, read one by one: for the
// edges of a window (jobs_list_created), at most an hour each, and the
// jobs of projects outside batches.
func (s *Store) rawRollup(ctx context.Context, r *rollup, cond string, since, until time.Time, more ...any) error {
	args := append([]any{since, until}, more...)
	rows, err := s.pool.Query(ctx, rawCountsSQL(cond), args...)
	if err != nil {
		return fmt.Errorf("store: window edge counts: %w", err)
	}
	counts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[countRow])
	if err != nil {
		return fmt.Errorf("store: window edge counts: %w", err)
	}
	r.counts = append(r.counts, counts...)
	return s.readHists(ctx, r, rawHistsSQL(cond), args...)
}

// rawCountsSQL and rawHistsSQL are rawRollup's queries.
func rawCountsSQL(cond string) string {
	return `SELECT j.kind, j.state::text, coalesce(j.verdict, ''), j.cached, count(*) FROM jobs j
		WHERE ` + cond + ` GROUP BY 1, 2, 3, 4`
}

func rawHistsSQL(cond string) string {
	return `SELECT j.kind, m.metric, m.bucket, count(*) FROM jobs j JOIN results r ON r.job_id = j.id,
			LATERAL (VALUES ('ms', puzzled_bucket((r.stats->>'elapsed_ms')::float8)),
				('nodes', puzzled_bucket((r.stats->>'nodes')::float8))) m (metric, bucket)
		WHERE ` + cond + ` AND NOT j.cached AND m.bucket IS NOT NULL
		GROUP BY 1, 2, 3`
}

// compactRollups folds the histogram rows of batches and hours that have
// many, and keeps the ten of each list of batch_tops; tx holds the
// compaction lock (CompactCounts).
func compactRollups(ctx context.Context, tx pgx.Tx, limit int) error {
	_, err := tx.Exec(ctx, `
		WITH heavy AS (
			SELECT batch_id FROM batch_hist GROUP BY 1 HAVING count(*) > 4 * $1 LIMIT $2
		), d AS (
			DELETE FROM batch_hist h USING heavy WHERE h.batch_id = heavy.batch_id RETURNING h.*
		)
		INSERT INTO batch_hist SELECT batch_id, kind, metric, bucket, sum(n) FROM d GROUP BY 1, 2, 3, 4`, compactAbove, limit)
	if err != nil {
		return fmt.Errorf("fold batch histograms: %w", err)
	}
	_, err = tx.Exec(ctx, `
		WITH heavy AS (
			SELECT hour FROM hour_hist GROUP BY 1 HAVING count(*) > 4 * $1 LIMIT $2
		), d AS (
			DELETE FROM hour_hist h USING heavy WHERE h.hour = heavy.hour RETURNING h.*
		)
		INSERT INTO hour_hist SELECT hour, kind, metric, bucket, sum(n) FROM d GROUP BY 1, 2, 3, 4`, compactAbove, limit)
	if err != nil {
		return fmt.Errorf("fold hourly histograms: %w", err)
	}
	_, err = tx.Exec(ctx, `
		WITH heavy AS (
			SELECT batch_id, list FROM batch_tops GROUP BY 1, 2 HAVING count(*) > 10 LIMIT $1
		)
		DELETE FROM batch_tops t USING (
			SELECT t.ctid AS row, row_number() OVER (PARTITION BY t.batch_id, t.list ORDER BY t.k1 DESC, t.k2, t.seq) AS rank
			FROM batch_tops t JOIN heavy ON heavy.batch_id = t.batch_id AND heavy.list = t.list
		) r
		WHERE t.ctid = r.row AND r.rank > 10`, limit)
	if err != nil {
		return fmt.Errorf("prune batch tops: %w", err)
	}
	return nil
}
