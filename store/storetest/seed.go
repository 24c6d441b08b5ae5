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

// Seed writes a synthetic, final history with COPY into the migrated
// database at databaseURL, for the list benchmark and the query-plan
// tests: levels, batches labelled {"project":"p<b%10>","chapter":"<b%20>"},
// jobs (a batch's jobs share its labels and creation time; a job outside
// a batch has {"designer":"d<i%50>"}), all done (95 %: 70 % solved, 20 % unsolvable,
// 10 % unknown), failed or canceled, and a result per done job. It
// statistics-analyzes the tables afterwards and vacuums them. Nothing is
// queued, so no worker picks the jobs up.
func Seed(ctx context.Context, databaseURL string, p SeedParams) error {
	if p.Levels <= 0 || p.Batches <= 0 || p.Jobs < p.Batches || len(p.Kinds) == 0 {
		return fmt.Errorf("storetest: seed: need levels, batches, kinds and at least a job per batch")
	}
	if p.Span <= 0 {
		p.Span = 30 * 24 * time.Hour
	}
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("storetest: seed: %w", err)
	}
	defer conn.Close(ctx)
	h := history{SeedParams: p, now: time.Now()}
	if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return h.write(ctx, tx) }); err != nil {
		return err
	}
	// As autovacuum would, in time: statistics for the planner, the GIN
	// indexes' pending lists merged, the visibility map set.
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE levels, level_verdicts, batches, batch_labels, jobs, results, job_labels, level_labels, job_counts, hour_counts, batch_hist, hour_hist`); err != nil {
		return fmt.Errorf("storetest: seed vacuum: %w", err)
	}
	if p.Checkpoint {
		// Write the seeded pages out now, or the server flushes them while
		// a benchmark measures (it needs superuser or pg_checkpoint).
		if _, err := conn.Exec(ctx, `CHECKPOINT`); err != nil {
			return fmt.Errorf("storetest: seed checkpoint: %w", err)
		}
	}
	return nil
}

// history is the synthetic history of one Seed.
type history struct {
	SeedParams
	now time.Time
}

// write copies the history in one transaction. Ids are GENERATED ALWAYS,
// which COPY cannot set: with the tables locked, one COPY takes
// consecutive ids, read back afterwards.
func (h history) write(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `LOCK TABLE batches, jobs IN EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("storetest: seed lock: %w", err)
	}
	if err := h.copyLevels(ctx, tx); err != nil {
		return err
	}
	firstBatch, err := h.copyBatches(ctx, tx)
	if err != nil {
		return err
	}
	firstJob, err := h.copyJobs(ctx, tx, firstBatch)
	if err != nil {
		return err
	}
	if err := labelRows(ctx, tx, firstBatch, firstJob); err != nil {
		return err
	}
	return h.copyResults(ctx, tx, firstJob)
}

// labelRows writes the label rows of the seeded batches, as
// store.CreateBatch does for batches of levels that existed before them
// (the seeded levels are a pool of their own): one batch_labels row per
// label and batch, which created no level, and one level_labels row per
// label and level of the batch's jobs.
func labelRows(ctx context.Context, tx pgx.Tx, firstBatch, firstJob int64) error {
	if _, err := tx.Exec(ctx, `
		INSERT INTO batch_labels (key, value, created_at, batch_id, creates_levels)
		SELECT e.key, e.value #>> '{}', b.created_at, b.id, false FROM batches b, jsonb_each(b.labels) e
		WHERE b.id >= $1`, firstBatch); err != nil {
		return fmt.Errorf("storetest: seed batch labels: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO level_labels (key, value, level_created_at, level_hash)
		SELECT DISTINCT e.key, e.value #>> '{}', l.created_at, l.hash
		FROM jobs j JOIN batches b ON b.id = j.batch_id JOIN levels l ON l.hash = j.level_hash, jsonb_each(b.labels) e
		WHERE j.id >= $1
		ON CONFLICT DO NOTHING`, firstJob); err != nil {
		return fmt.Errorf("storetest: seed level labels: %w", err)
	}
	return nil
}

// at is the creation time of the i-th of n rows, spread over Span. (In
// float64: i·Span in nanoseconds overflows int64 from the 3,559th row of
// a 30-day history, which scattered the times of every larger history.)
func (h history) at(i, n int) time.Time {
	return h.now.Add(-h.Span + time.Duration(float64(h.Span)*float64(i)/float64(n)))
}

func levelHash(i int) string {
	sum := sha256.Sum256([]byte("seed-level-" + strconv.Itoa(i)))
	return hex.EncodeToString(sum[:])
}

func (h history) perBatch() int { return h.Jobs / h.Batches }

func batchLabels(b int) string { return fmt.Sprintf(`{"project":"p%d","chapter":"%d"}`, b%10, b%20) }

func (h history) copyLevels(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"levels"}, []string{"hash", "kind", "body", "created_at"},
		pgx.CopyFromSlice(h.Levels, func(i int) ([]any, error) {
			kind := h.Kinds[i%len(h.Kinds)]
			return []any{levelHash(i), kind, `{"kind":"` + kind + `","seed":` + strconv.Itoa(i) + `}`, h.at(i, h.Levels)}, nil
		}))
	if err != nil {
		return fmt.Errorf("storetest: seed levels: %w", err)
	}
	return nil
}

func (h history) copyBatches(ctx context.Context, tx pgx.Tx) (first int64, err error) {
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"batches"}, []string{"total", "priority", "labels", "created_at"},
		pgx.CopyFromSlice(h.Batches, func(b int) ([]any, error) {
			return []any{h.perBatch(), jobtype.Bulk, batchLabels(b), h.at(b*h.perBatch(), h.Jobs)}, nil
		}))
	if err != nil {
		return 0, fmt.Errorf("storetest: seed batches: %w", err)
	}
	return firstOfLast(ctx, tx, "batches", h.Batches)
}

// seeded is what the i-th job of the history is.
type seeded struct {
	state   jobtype.State
	verdict string
	level   int
}

func (h history) job(i int) seeded {
	j := seeded{state: jobtype.Done, level: (i * 7919) % h.Levels}
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

func (h history) copyJobs(ctx context.Context, tx pgx.Tx, firstBatch int64) (first int64, err error) {
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"jobs"},
		[]string{"batch_id", "seq", "level_hash", "kind", "state", "priority", "labels", "attempts",
			"verdict", "created_at", "started_at", "finished_at"},
		pgx.CopyFromSlice(h.Jobs, func(i int) ([]any, error) {
			j := h.job(i)
			t := h.at(i, h.Jobs)
			var batch *int64
			var seq *int32
			var labels *string
			if b := min(i/h.perBatch(), h.Batches-1); i%10 != 0 {
				// A batch's jobs share its creation time and labels.
				id, s := firstBatch+int64(b), int32(i-b*h.perBatch())
				batch, seq, t = &id, &s, h.at(b*h.perBatch(), h.Jobs)
			} else {
				own := fmt.Sprintf(`{"designer":"d%d"}`, i/10%50)
				labels = &own
			}
			var verdict *string
			if j.verdict != "" {
				verdict = &j.verdict
			}
			return []any{batch, seq, levelHash(j.level), h.Kinds[j.level%len(h.Kinds)],
				j.state, jobtype.Bulk, labels, int32(1), verdict, t, t, t.Add(time.Millisecond)}, nil
		}))
	if err != nil {
		return 0, fmt.Errorf("storetest: seed jobs: %w", err)
	}
	return firstOfLast(ctx, tx, "jobs", h.Jobs)
}

func (h history) copyResults(ctx context.Context, tx pgx.Tx, firstJob int64) error {
	done := make([]int, 0, h.Jobs)
	for i := range h.Jobs {
		if h.job(i).verdict != "" {
			done = append(done, i)
		}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"results"},
		[]string{"job_id", "level_hash", "solver_version", "verdict", "value", "optimal", "stats", "created_at"},
		pgx.CopyFromSlice(len(done), func(k int) ([]any, error) {
			i := done[k]
			j := h.job(i)
			var value *int64
			if j.verdict == "solved" {
				v := int64(i % 40)
				value = &v
			}
			version := "1"
			if i > h.Jobs/2 {
				version = "2"
			}
			return []any{firstJob + int64(i), levelHash(j.level), version, j.verdict, value, j.verdict != "unknown",
				`{"nodes":1,"elapsed_ms":1}`, h.at(i, h.Jobs).Add(time.Millisecond)}, nil
		}))
	if err != nil {
		return fmt.Errorf("storetest: seed results: %w", err)
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
		return 0, fmt.Errorf("storetest: seed %s ids: %w", table, err)
	}
	if count != int64(n) {
		return 0, fmt.Errorf("storetest: seed %s: ids are not consecutive", table)
	}
	return first, nil
}
