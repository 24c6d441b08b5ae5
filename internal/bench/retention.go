package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/puzzled/puzzled/api"
	"github.com/puzzled/puzzled/api/client"
	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver/twoends"
	"github.com/puzzled/puzzled/store"
)

// RunRetention is `puzzled bench-retention`: retention over a simulated
// history (issue 31). A project with --retain days of retention receives
// --jobs jobs over --days simulated days, a day at a time, written
// straight into PostgreSQL as finished work (batches of --batch labelled
// jobs, their results with a plan, checkpoint rows for one job in twenty,
// the levels drawn from a pool of --levels, so that levels come back
// every few days as a designer's do) with the timestamps of that day. At
// the end of each day it runs the garbage collector as of the next
// midnight (store.CollectGarbage, with the bounds of the periodic pass),
// then VACUUM ANALYZEs as autovacuum would over a day. Meanwhile a client posts
// interactive jobs one after another through the API: their POST latency
// while the collector runs is set against the same client's over a
// window of the same length without it. It prints, per day, the database's
// size, the jobs and kept jobs, and what the collector deleted, and at the
// end the size against 8 days' worth (the size after day 8, before the
// first deletion) plus the jobs kept for their results, and checks that
// every level's newest definitive result survived.
func RunRetention(ctx context.Context, args []string, srv Servers) error {
	cfg := Config{CheckpointEvery: 5 * time.Second, StaleAfter: time.Minute,
		Limits: api.Limits{SubmitRate: 1e6}} // one client posts as fast as it can
	fs := flag.NewFlagSet("bench-retention", flag.ContinueOnError)
	databaseFlags(fs, &cfg, "an empty database the bench may fill")
	fs.StringVar(&cfg.RedisAddr, "redis-addr", "", "Redis address whose DB --redis-db the bench may fill (default: embedded)")
	fs.IntVar(&cfg.RedisDB, "redis-db", 0, "Redis database index")
	jobs := fs.Int("jobs", 1_000_000, "jobs over the whole history")
	days := fs.Int("days", 30, "simulated days")
	retain := fs.Int("retain", 7, "the project's retention, days")
	levels := fs.Int("levels", 0, "distinct levels the jobs draw from (default --jobs/5)")
	perBatch := fs.Int("batch", 1000, "jobs per batch")
	keepResults := fs.Bool("keep-results", true, "the project keeps each level's newest definitive result past the retention (false: the storage without them)")
	fs.StringVar(&cfg.LogLevel, "log-level", "warn", "log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *days <= *retain+1 || *jobs < *days**perBatch {
		return fmt.Errorf("bench-retention: need --days above --retain+1 and a batch a day at least")
	}
	logger, st, qc, stop, err := openBench(ctx, srv, &cfg)
	if err != nil {
		return err
	}
	defer stop()
	conn, err := pgx.Connect(ctx, cmp.Or(cfg.DirectURL, cfg.DatabaseURL))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	p, err := st.CreateProject(ctx, "retained")
	if err != nil {
		return fmt.Errorf("bench-retention: needs an empty database: %w", err)
	}
	// The posting client's jobs go to a project of their own, deleted at
	// the end of every day: they are probes, not history.
	probe, err := st.CreateProject(ctx, "probe")
	if err != nil {
		return err
	}
	if err := st.SetRetention(ctx, p.ID, store.Retention{Keep: time.Duration(*retain) * 24 * time.Hour, DropResults: !*keepResults}); err != nil {
		return err
	}
	c, stopAPI, err := serveAPI(ctx, srv, cfg, st, qc, logger, time.Minute)
	if err != nil {
		return err
	}
	defer stopAPI()

	perDay := (*jobs + *days**perBatch - 1) / (*days * *perBatch) * *perBatch // whole batches, at least --jobs in all
	h := history{conn: conn, project: p.ID, perDay: perDay, perBatch: *perBatch,
		levels: cmp.Or(*levels, *jobs/5), start: time.Now().Add(-time.Duration(*days) * 24 * time.Hour).Truncate(24 * time.Hour)}
	post := &poster{c: c, project: probe.Name}
	postCtx, stopPosting := context.WithCancel(ctx)
	var posting sync.WaitGroup
	posting.Go(func() { post.run(postCtx) })
	defer func() { stopPosting(); posting.Wait() }()

	fmt.Printf("%d jobs over %d days (%d a day, batches of %d, %d levels), retention %d days\n",
		h.perDay**days, *days, h.perDay, h.perBatch, h.levels, *retain)
	fmt.Println("day  size MB  jobs     kept   deleted  batches  levels  gc s   POST p99 ms: gc / without")
	var size8 int64
	var jobs8 int
	var during, without []time.Duration
	var lostTotal int
	for d := range *days {
		if err := h.day(ctx, d); err != nil {
			return err
		}
		if d == *retain {
			if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil {
				return err
			}
			size, err := dbSize(ctx, conn)
			if err != nil {
				return err
			}
			// Days 0..retain are all here and nothing was deleted yet: 8
			// days' worth for a retention of 7.
			size8, jobs8 = size, h.perDay*(d+1)
		}
		midnight := h.start.Add(time.Duration(d+1) * 24 * time.Hour)
		if err := h.expect(ctx); err != nil {
			return err
		}
		post.mark()
		t0 := time.Now()
		stats, err := st.CollectGarbage(ctx, midnight, store.GCOptions{Chunk: 500, Pause: 50 * time.Millisecond})
		took := time.Since(t0)
		gcLat := post.mark()
		if err != nil {
			return err
		}
		// The same client over as long without the collector.
		if err := sleepCtx(ctx, max(took, time.Second)); err != nil {
			return err
		}
		baseLat := post.mark()
		lost, err := h.lostResults(ctx)
		if err != nil {
			return err
		}
		lostTotal += lost
		if stats.Jobs > 0 {
			during, without = append(during, gcLat...), append(without, baseLat...)
		}
		if _, err := conn.Exec(ctx, `
			WITH j AS (DELETE FROM jobs WHERE project_id = $1 RETURNING level_hash),
			a AS (DELETE FROM audit WHERE project_id = $1)
			DELETE FROM levels WHERE hash IN (SELECT level_hash FROM j)`, probe.ID); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil {
			return err
		}
		after, err := dbSize(ctx, conn)
		if err != nil {
			return err
		}
		var left, kept int
		if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE finished_at < $2)
			FROM jobs WHERE project_id = $1`, p.ID, midnight.Add(-time.Duration(*retain)*24*time.Hour)).Scan(&left, &kept); err != nil {
			return err
		}
		fmt.Printf("%3d  %7.1f  %7d  %5d  %7d  %7d  %6d  %5.1f  %6.1f / %.1f\n", d, float64(after)/1e6, left, kept,
			stats.Jobs, stats.Batches, stats.Levels, took.Seconds(), ms(pct(gcLat, 99)), ms(pct(baseLat, 99)))
	}
	final, err := dbSize(ctx, conn)
	if err != nil {
		return err
	}
	var kept int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE project_id = $1 AND finished_at < $2`,
		p.ID, h.start.Add(time.Duration(*days-*retain)*24*time.Hour)).Scan(&kept); err != nil {
		return err
	}
	perJob := float64(size8) / float64(jobs8)
	bound := float64(size8) + float64(kept)*perJob
	fmt.Printf("8 days' worth (after day %d, nothing deleted yet): %.1f MB, %.0f B a job\n", *retain, float64(size8)/1e6, perJob)
	fmt.Printf("at the end: %.1f MB with %d jobs kept for their level's result; bound 8 days + kept jobs at %.0f B: %.1f MB: %s\n",
		float64(final)/1e6, kept, perJob, bound/1e6, map[bool]string{true: "within", false: "ABOVE"}[float64(final) <= bound])
	fmt.Printf("POST /v1/jobs while the collector ran: p50 %.1f ms, p99 %.1f ms (%d posts); without: p50 %.1f ms, p99 %.1f ms (%d posts)\n",
		ms(pct(during, 50)), ms(pct(during, 99)), len(during), ms(pct(without, 50)), ms(pct(without, 99)), len(without))
	fmt.Printf("levels whose newest definitive result a collection deleted: %d\n", lostTotal)
	if lostTotal > 0 && *keepResults {
		return fmt.Errorf("bench-retention: %d levels lost their newest definitive result", lostTotal)
	}
	if post.err != nil {
		return fmt.Errorf("bench-retention: a POST failed: %w", post.err)
	}
	return nil
}

// history writes the simulated days.
type history struct {
	conn             *pgx.Conn
	project          int64
	perDay, perBatch int
	levels           int
	start            time.Time
}

// day writes day d: its levels (those not stored yet), batches, jobs
// (finished within the day), results and a few checkpoint rows, in one
// transaction, as set operations.
func (h *history) day(ctx context.Context, d int) error {
	t := h.start.Add(time.Duration(d) * 24 * time.Hour)
	from := d * h.perDay
	nb := h.perDay / h.perBatch
	return pgx.BeginFunc(ctx, h.conn, func(tx pgx.Tx) error {
		// Job i of the history draws level (i·7919) mod levels, so a level
		// comes back every levels jobs; a job's fate is a hash of i mod 100
		// (3 failed, 2 canceled, 67 solved, 19 unsolvable, 9 unknown, as
		// storetest.Seed), so that it changes from one time to the next.
		if _, err := tx.Exec(ctx, `
			INSERT INTO levels (hash, kind, body, created_at)
			SELECT DISTINCT ON (l) md5('l' || l) || md5('k' || l), 'twoends',
				jsonb_build_object('kind', 'twoends', 'values', jsonb_build_array(l % 97, l % 89, l % 83, l % 79, l % 73, l % 71, l % 67, l % 61)),
				$3::timestamptz + (i - $1::int) * interval '86400 seconds' / $4::int
			FROM generate_series($1::int, $1::int + $4::int - 1) i, LATERAL (SELECT (i::bigint * 7919) % $2::int AS l) x
			ON CONFLICT DO NOTHING`, from, h.levels, t, h.perDay); err != nil {
			return fmt.Errorf("day %d levels: %w", d, err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO batches (total, priority, labels, created_at, project_id)
			SELECT $1::int, 'bulk', jsonb_build_object('game', 'g' || (b % 5), 'day', $4::text),
				$2::timestamptz + b * interval '86400 seconds' / $3::int, $5::bigint
			FROM generate_series(0, $3::int - 1) b ORDER BY b`, h.perBatch, t, nb, fmt.Sprint(d), h.project); err != nil {
			return fmt.Errorf("day %d batches: %w", d, err)
		}
		var firstBatch int64
		if err := tx.QueryRow(ctx, `SELECT max(id) - $1 + 1 FROM batches`, nb).Scan(&firstBatch); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO batch_labels (key, value, created_at, batch_id)
			SELECT e.key, e.value #>> '{}', b.created_at, b.id FROM batches b, jsonb_each(b.labels) e WHERE b.id >= $1`, firstBatch); err != nil {
			return fmt.Errorf("day %d batch labels: %w", d, err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO jobs (batch_id, seq, level_hash, kind, state, priority, attempts, verdict,
				created_at, started_at, finished_at, project_id)
			SELECT $4::bigint + k / $5::int, k % $5::int, md5('l' || l) || md5('k' || l), 'twoends',
				CASE WHEN f < 3 THEN 'failed' WHEN f < 5 THEN 'canceled' ELSE 'done' END::job_state, 'bulk', 1,
				CASE WHEN f < 5 THEN NULL WHEN f < 72 THEN 'solved' WHEN f < 91 THEN 'unsolvable' ELSE 'unknown' END,
				b.created_at, b.created_at + interval '1 minute', b.created_at + interval '1 minute' + (k % $5::int) * interval '1 second', $6::bigint
			FROM generate_series(0, $3::int * $5::int - 1) k
			JOIN batches b ON b.id = $4::bigint + k / $5::int,
			LATERAL (SELECT $1::int + k AS i) ii, LATERAL (SELECT (ii.i::bigint * 7919) % $2::int AS l, (hashint4(ii.i) & 2147483647) % 100 AS f) x
			ORDER BY k`, from, h.levels, nb, firstBatch, h.perBatch, h.project); err != nil {
			return fmt.Errorf("day %d jobs: %w", d, err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO results (job_id, level_hash, solver_version, verdict, value, optimal, proof, plan, stats, created_at)
			SELECT j.id, j.level_hash, '1', j.verdict, CASE WHEN j.verdict = 'solved' THEN j.id % 40 END,
				j.verdict <> 'unknown', CASE WHEN j.verdict = 'unsolvable' THEN 'exhausted' END,
				CASE WHEN j.verdict = 'solved' THEN '"LRLLRRLRLRLLRRLRLRLLRRLRLRLLRRLRLRLLRRLR"'::jsonb END,
				jsonb_build_object('nodes', j.id % 100000, 'elapsed_ms', j.id % 900), j.finished_at
			FROM jobs j WHERE j.batch_id >= $1 AND j.verdict IS NOT NULL`, firstBatch); err != nil {
			return fmt.Errorf("day %d results: %w", d, err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO checkpoints (job_id, seq, nodes, blob, updated_at, best)
			SELECT j.id, 3, 1000000, NULL, j.finished_at, '{"line":"LRLRLR","score":12}'
			FROM jobs j WHERE j.batch_id >= $1 AND j.id % 20 = 0`, firstBatch); err != nil {
			return fmt.Errorf("day %d checkpoints: %w", d, err)
		}
		return nil
	})
}

// expect notes, before a collection, the job holding each level's newest
// definitive result in the project (by the order GetLevel reads);
// lostResults counts those whose result is gone after it.
func (h *history) expect(ctx context.Context) error {
	_, err := h.conn.Exec(ctx, `
		DROP TABLE IF EXISTS expect;
		CREATE TEMP TABLE expect AS
		SELECT DISTINCT ON (r.level_hash) r.level_hash, r.job_id
		FROM results r JOIN jobs j ON j.id = r.job_id
		WHERE j.project_id = `+fmt.Sprint(h.project)+` AND r.verdict IN ('solved', 'unsolvable')
		ORDER BY r.level_hash, r.created_at DESC, r.job_id DESC`)
	return err
}

func (h *history) lostResults(ctx context.Context) (int, error) {
	var lost int
	err := h.conn.QueryRow(ctx, `SELECT count(*) FROM expect e
		WHERE NOT EXISTS (SELECT 1 FROM results r WHERE r.job_id = e.job_id)`).Scan(&lost)
	return lost, err
}

// dbSize is the database's size on disk.
func dbSize(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var n int64
	err := conn.QueryRow(ctx, `SELECT pg_database_size(current_database())`).Scan(&n)
	return n, err
}

// poster posts interactive jobs one after another and keeps each POST's
// latency; mark returns those since the last mark.
type poster struct {
	c       *client.Client
	project string
	mu      sync.Mutex
	lat     []time.Duration
	err     error
	seqn    int
}

func (p *poster) run(ctx context.Context) {
	for ctx.Err() == nil {
		p.seqn++
		lvl := json.RawMessage(fmt.Sprintf(`{"kind":%q,"values":[%d,%d,7,1,2]}`, twoends.Name, time.Now().UnixNano()%1_000_000_007, p.seqn))
		t0 := time.Now()
		_, err := p.c.CreateJob(ctx, lvl, jobtype.Options{Project: p.project})
		d := time.Since(t0)
		p.mu.Lock()
		if err != nil && ctx.Err() == nil {
			p.err = err
		} else {
			p.lat = append(p.lat, d)
		}
		p.mu.Unlock()
		_ = sleepCtx(ctx, 10*time.Millisecond)
	}
}

func (p *poster) mark() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := slices.Clone(p.lat)
	p.lat = p.lat[:0]
	return out
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
