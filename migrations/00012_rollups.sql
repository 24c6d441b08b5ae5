-- +goose Up

-- Issue 29: a batch's report and /v1/stats read rollups kept as results
-- are stored, not every job and result (a 100,000-job report took 1.5–2.5
-- s, /v1/stats over 30 days of 5,100,000 jobs 15 s). Like job_counts
-- (migrations/00010_write_path.sql), the rollups are deltas that the
-- statement storing results appends, and store.CompactCounts folds.

-- Histograms of the solve time (ms) and search nodes of solved (not
-- cached) jobs, and of the difficulty scores of rated ones, per batch and
-- per hour of the jobs' creation. A bucket b > 0 holds the values in
-- [2^((b-1)/8), 2^(b/8)); bucket 0 holds values below 1. A percentile
-- read from them is within 4.4 % of the exact one (store/rollups.go).
CREATE TABLE batch_hist (
    batch_id bigint NOT NULL,
    kind     text NOT NULL,
    metric   text NOT NULL,   -- ms, nodes, score (bucket = the score)
    bucket   integer NOT NULL,
    n        bigint NOT NULL
);
CREATE INDEX batch_hist_batch ON batch_hist (batch_id);
CREATE TABLE hour_hist (
    hour   timestamptz NOT NULL,
    kind   text NOT NULL,
    metric text NOT NULL,
    bucket integer NOT NULL,
    n      bigint NOT NULL
);
CREATE INDEX hour_hist_hour ON hour_hist (hour);

-- The slowest solves and the hardest rated levels of each batch, for its
-- report: each statement storing results adds its own ten of each per
-- batch; store.CompactCounts keeps ten. k1, k2: the order, descending on
-- k1 then ascending on k2 (slowest: ms; hardest: score, then the random
-- player's win rate).
CREATE TABLE batch_tops (
    batch_id bigint NOT NULL,
    list     text NOT NULL,   -- slowest, hardest
    job_id   bigint NOT NULL,
    seq      integer NOT NULL,
    k1       float8 NOT NULL,
    k2       float8 NOT NULL
);
CREATE INDEX batch_tops_batch ON batch_tops (batch_id, list);

-- The unsolvable, unknown and failed jobs of a batch in seq order: the
-- lists of its report. Solved jobs, most of them, write no entry.
CREATE INDEX jobs_report ON jobs (batch_id, seq)
    WHERE batch_id IS NOT NULL AND (verdict IN ('unsolvable', 'unknown') OR state = 'failed');

-- +goose StatementBegin
CREATE FUNCTION puzzled_bucket(x float8) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN NULL WHEN x < 1 THEN 0 ELSE 1 + floor(8 * ln(x) / ln(2))::integer END
$$;
-- +goose StatementEnd

-- Every INSERT INTO results: the new results' jobs, joined by key, give
-- the batch, hour, kind and cached flag.
-- +goose StatementBegin
CREATE FUNCTION puzzled_results_rolled() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH r AS MATERIALIZED (
        SELECT coalesce(j.batch_id, 0) AS batch_id, date_trunc('hour', j.created_at, 'UTC') AS hour, j.kind,
            j.id, coalesce(j.seq, 0) AS seq, j.cached,
            (n.stats->>'elapsed_ms')::float8 AS ms, (n.stats->>'nodes')::float8 AS nodes,
            (n.difficulty->>'score')::integer AS score,
            coalesce((n.difficulty->'random'->>'rate')::float8, 0) AS rate
        -- Each job is read by key (LATERAL … LIMIT 1): with no statistics
        -- on the transition table, a plain join scanned every job.
        FROM new_rows n CROSS JOIN LATERAL (
            SELECT id, batch_id, created_at, kind, seq, cached FROM jobs WHERE id = n.job_id LIMIT 1) j
    ), m AS MATERIALIZED (
        SELECT batch_id, hour, kind, 'ms' AS metric, puzzled_bucket(ms) AS bucket FROM r WHERE NOT cached AND ms IS NOT NULL
        UNION ALL
        SELECT batch_id, hour, kind, 'nodes', puzzled_bucket(nodes) FROM r WHERE NOT cached AND nodes IS NOT NULL
        UNION ALL
        SELECT batch_id, hour, kind, 'score', score FROM r WHERE score IS NOT NULL
    ), b AS (
        INSERT INTO batch_hist (batch_id, kind, metric, bucket, n)
        SELECT batch_id, kind, metric, bucket, count(*) FROM m WHERE batch_id <> 0 GROUP BY 1, 2, 3, 4
    ), h AS (
        INSERT INTO hour_hist (hour, kind, metric, bucket, n)
        SELECT hour, kind, metric, bucket, count(*) FROM m GROUP BY 1, 2, 3, 4
    )
    INSERT INTO batch_tops (batch_id, list, job_id, seq, k1, k2)
    SELECT batch_id, list, id, seq, k1, k2 FROM (
        SELECT batch_id, 'slowest' AS list, id, seq, ms AS k1, 0::float8 AS k2,
            row_number() OVER (PARTITION BY batch_id ORDER BY ms DESC, seq) AS rank
        FROM r WHERE batch_id <> 0 AND NOT cached AND ms IS NOT NULL
        UNION ALL
        SELECT batch_id, 'hardest', id, seq, score, rate,
            row_number() OVER (PARTITION BY batch_id ORDER BY score DESC, rate, seq)
        FROM r WHERE batch_id <> 0 AND score IS NOT NULL
    ) t
    WHERE rank <= 10;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER results_rolled AFTER INSERT ON results
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION puzzled_results_rolled();

-- The rollups of the results stored before this migration.
INSERT INTO batch_hist (batch_id, kind, metric, bucket, n)
SELECT j.batch_id, j.kind, m.metric, m.bucket, count(*)
FROM results r JOIN jobs j ON j.id = r.job_id,
    LATERAL (VALUES
        ('ms', CASE WHEN NOT j.cached THEN puzzled_bucket((r.stats->>'elapsed_ms')::float8) END),
        ('nodes', CASE WHEN NOT j.cached THEN puzzled_bucket((r.stats->>'nodes')::float8) END),
        ('score', (r.difficulty->>'score')::integer)) m (metric, bucket)
WHERE j.batch_id IS NOT NULL AND m.bucket IS NOT NULL
GROUP BY 1, 2, 3, 4;
INSERT INTO hour_hist (hour, kind, metric, bucket, n)
SELECT date_trunc('hour', j.created_at, 'UTC'), j.kind, m.metric, m.bucket, count(*)
FROM results r JOIN jobs j ON j.id = r.job_id,
    LATERAL (VALUES
        ('ms', CASE WHEN NOT j.cached THEN puzzled_bucket((r.stats->>'elapsed_ms')::float8) END),
        ('nodes', CASE WHEN NOT j.cached THEN puzzled_bucket((r.stats->>'nodes')::float8) END),
        ('score', (r.difficulty->>'score')::integer)) m (metric, bucket)
WHERE m.bucket IS NOT NULL
GROUP BY 1, 2, 3, 4;
INSERT INTO batch_tops (batch_id, list, job_id, seq, k1, k2)
SELECT batch_id, list, id, seq, k1, k2 FROM (
    SELECT j.batch_id, 'slowest' AS list, j.id, j.seq, (r.stats->>'elapsed_ms')::float8 AS k1, 0::float8 AS k2,
        row_number() OVER (PARTITION BY j.batch_id ORDER BY (r.stats->>'elapsed_ms')::float8 DESC, j.seq) AS rank
    FROM results r JOIN jobs j ON j.id = r.job_id
    WHERE j.batch_id IS NOT NULL AND NOT j.cached AND r.stats ? 'elapsed_ms'
    UNION ALL
    SELECT j.batch_id, 'hardest', j.id, j.seq, (r.difficulty->>'score')::float8,
        coalesce((r.difficulty->'random'->>'rate')::float8, 0),
        row_number() OVER (PARTITION BY j.batch_id ORDER BY (r.difficulty->>'score')::integer DESC,
            coalesce((r.difficulty->'random'->>'rate')::float8, 0), j.seq)
    FROM results r JOIN jobs j ON j.id = r.job_id
    WHERE j.batch_id IS NOT NULL AND r.difficulty ? 'score'
) t
WHERE rank <= 10;

-- +goose Down
DROP TRIGGER results_rolled ON results;
DROP FUNCTION puzzled_results_rolled();
DROP FUNCTION puzzled_bucket(float8);
DROP INDEX jobs_report;
DROP TABLE batch_tops;
DROP TABLE hour_hist;
DROP TABLE batch_hist;
