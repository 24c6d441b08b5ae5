package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/jobtype"
)

// SeedParams size the synthetic history Seed writes.
type SeedParams struct {
	Jobs    int // jobs; the done ones get a result
	Levels  int // distinct levels the jobs share
	Batches int // nine jobs in ten belong to a batch
	// Kinds are the kind names the levels cycle through (the registry's).
	Kinds []string
	// Span is how far back the history goes (default 30 days); jobs are
	// spread evenly over it, oldest first.
	Span time.Duration
	// Checkpoint ends the seeding with a CHECKPOINT (benchmarks).
	Checkpoint bool
}

// Seed writes a synthetic, final history with COPY, for the list
// benchmark and the query-plan tests: levels, batches labelled
// {"project":"p<b%10>","chapter":"<b%20>"}, jobs (batch jobs carry their
// batch's labels; a job outside a batch has {"designer":"d<i%50>"}), all
// done (95 %: 70 % solved, 20 % unsolvable, 10 % unknown), failed or
// canceled, and a result per done job. It statistics-analyzes the tables
// afterwards and vacuums them. Nothing is queued, so no worker picks the jobs up.
func (s *Store) Seed(ctx context.Context, p SeedParams) error {
	if p.Levels <= 0 || p.Batches <= 0 || p.Jobs < p.Batches || len(p.Kinds) == 0 {
		return fmt.Errorf("store: seed: need levels, batches, kinds and at least a job per batch")
	}
	if p.Span <= 0 {
		p.Span = 30 * 24 * time.Hour
	}
	now := time.Now()
	at := func(i, n int) time.Time { return now.Add(-p.Span + time.Duration(i)*p.Span/time.Duration(n)) }
	hash := func(i int) string {
		sum := sha256.Sum256([]byte("seed-level-" + strconv.Itoa(i)))
		return hex.EncodeToString(sum[:])
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Ids are GENERATED ALWAYS, which COPY cannot set: with the tables
		// locked, one COPY takes consecutive ids, read back afterwards.
		if _, err := tx.Exec(ctx, `LOCK TABLE batches, jobs IN EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("store: seed lock: %w", err)
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"levels"}, []string{"hash", "kind", "body", "created_at"},
			pgx.CopyFromSlice(p.Levels, func(i int) ([]any, error) {
				kind := p.Kinds[i%len(p.Kinds)]
				return []any{hash(i), kind, `{"kind":"` + kind + `","seed":` + strconv.Itoa(i) + `}`, at(i, p.Levels)}, nil
			}))
		if err != nil {
			return fmt.Errorf("store: seed levels: %w", err)
		}
		perBatch := p.Jobs / p.Batches
		batchLabels := func(b int) string {
			return fmt.Sprintf(`{"project":"p%d","chapter":"%d"}`, b%10, b%20)
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"batches"}, []string{"total", "priority", "labels", "created_at"},
			pgx.CopyFromSlice(p.Batches, func(b int) ([]any, error) {
				return []any{perBatch, "bulk", batchLabels(b), at(b*perBatch, p.Jobs)}, nil
			}))
		if err != nil {
			return fmt.Errorf("store: seed batches: %w", err)
		}
		firstBatch, err := firstOfLast(ctx, tx, "batches", p.Batches)
		if err != nil {
			return err
		}
		type seeded struct {
			state   jobtype.State
			verdict string
			level   int
		}
		job := func(i int) seeded {
			j := seeded{state: jobtype.Done, level: (i * 7919) % p.Levels}
			switch r := i % 100; {
			case r < 3:
				j.state = jobtype.Failed
			case r < 5:
				j.state = jobtype.Canceled
			case r < 5+67:
				j.verdict = "solved"
			case r < 5+86:
				j.verdict = "unsolvable"
			default:
				j.verdict = "unknown"
			}
			return j
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"jobs"},
			[]string{"batch_id", "seq", "level_hash", "kind", "state", "priority", "labels", "attempts",
				"verdict", "created_at", "started_at", "finished_at"},
			pgx.CopyFromSlice(p.Jobs, func(i int) ([]any, error) {
				j := job(i)
				t := at(i, p.Jobs)
				var batch *int64
				var seq *int32
				labels := fmt.Sprintf(`{"designer":"d%d"}`, i/10%50)
				if b := min(i/perBatch, p.Batches-1); i%10 != 0 {
					id, s := firstBatch+int64(b), int32(i-b*perBatch)
					batch, seq, labels = &id, &s, batchLabels(b)
				}
				var verdict *string
				if j.verdict != "" {
					verdict = &j.verdict
				}
				return []any{batch, seq, hash(j.level), p.Kinds[j.level%len(p.Kinds)],
					j.state, "bulk", labels, int32(1), verdict, t, t, t.Add(time.Millisecond)}, nil
			}))
		if err != nil {
			return fmt.Errorf("store: seed jobs: %w", err)
		}
		firstJob, err := firstOfLast(ctx, tx, "jobs", p.Jobs)
		if err != nil {
			return err
		}
		done := make([]int, 0, p.Jobs)
		for i := range p.Jobs {
			if job(i).verdict != "" {
				done = append(done, i)
			}
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"results"},
			[]string{"job_id", "level_hash", "solver_version", "verdict", "value", "optimal", "stats", "created_at"},
			pgx.CopyFromSlice(len(done), func(k int) ([]any, error) {
				i := done[k]
				j := job(i)
				var value *int64
				if j.verdict == "solved" {
					v := int64(i % 40)
					value = &v
				}
				version := "1"
				if i > p.Jobs/2 {
					version = "2"
				}
				return []any{firstJob + int64(i), hash(j.level), version, j.verdict, value, j.verdict != "unknown",
					`{"nodes":1,"elapsed_ms":1}`, at(i, p.Jobs).Add(time.Millisecond)}, nil
			}))
		if err != nil {
			return fmt.Errorf("store: seed results: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// As autovacuum would, in time: statistics for the planner, the GIN
	// indexes' pending lists merged, the visibility map set.
	if _, err := s.pool.Exec(ctx, `VACUUM ANALYZE levels, batches, jobs, results, job_labels, level_labels`); err != nil {
		return fmt.Errorf("store: seed vacuum: %w", err)
	}
	if p.Checkpoint {
		// Write the seeded pages out now, or the server flushes them while
		// a benchmark measures (it needs superuser or pg_checkpoint).
		if _, err := s.pool.Exec(ctx, `CHECKPOINT`); err != nil {
			return fmt.Errorf("store: seed checkpoint: %w", err)
		}
	}
	return nil
}

// firstOfLast returns the first id of the last n rows COPYed into table,
// checking that their ids are consecutive.
func firstOfLast(ctx context.Context, tx pgx.Tx, table string, n int) (int64, error) {
	var first, count int64
	err := tx.QueryRow(ctx, `WITH m AS (SELECT max(id) - $1 + 1 AS first FROM `+table+`)
		SELECT m.first, (SELECT count(*) FROM `+table+` WHERE id >= m.first) FROM m`, n).Scan(&first, &count)
	if err != nil {
		return 0, fmt.Errorf("store: seed %s ids: %w", table, err)
	}
	if count != int64(n) {
		return 0, fmt.Errorf("store: seed %s: ids are not consecutive", table)
	}
	return first, nil
}
