-- +goose Up

-- Issue 29: a job of a batch costs PostgreSQL one INSERT and one UPDATE
-- (its result), as it did before the list, liveness and label features
-- added three more writes per job (docs/benchmarks.md has the figures).

-- Foreign keys checked on every result and every job row: a result is
-- only ever written for a job found live in the same statement, and jobs
-- only in the transaction that stores their batch. The check locked the
-- job row just updated (FOR KEY SHARE), a third of FinishJobs' time.
ALTER TABLE results DROP CONSTRAINT results_job_id_fkey;
ALTER TABLE jobs DROP CONSTRAINT jobs_batch_id_fkey;
ALTER TABLE jobs DROP CONSTRAINT jobs_dup_of_fkey;

-- Each index of jobs is written by every job's INSERT and by its result's
-- UPDATE. A batch's jobs share its created_at and their ids follow their
-- seq, so jobs_batch_seq serves a batch's list in page order and
-- jobs_list_batch goes. Done jobs, 95 % of all, leave jobs_list_state (a
-- list of done jobs reads jobs_list_created, where nearly every row
-- matches), so a result's UPDATE writes no entry there. The labels that
-- jobs_list_level carried are only a job's own now: levels?label= probes
-- read the job rows.
DROP INDEX jobs_list_batch;
-- A kind is a quarter of the jobs and levels or so: a list by kind reads
-- the newest first (jobs_list_created, levels_list_created) and keeps
-- about one row in four, which costs less than an index that every job
-- and level writes.
DROP INDEX jobs_list_kind;
DROP INDEX levels_list_kind;
DROP INDEX jobs_list_state;
CREATE INDEX jobs_list_state ON jobs (state, created_at, id) WHERE state <> 'done';
DROP INDEX jobs_list_level;
CREATE INDEX jobs_list_level ON jobs (level_hash, created_at, id);

-- The bundles of a batch (queue.BundleSize consecutive jobs travel in one
-- task), owned as one: a worker claims the bundle, not each of its jobs. A
-- bundle row lives from its batch's creation until its worker ends the
-- bundle with no job left in it (store.EndBundle), the dispatcher finds it
-- empty, its owner is found dead (its jobs then go solo), or the batch is
-- canceled; jobs sent solo leave it.
CREATE TABLE bundles (
    batch_id  bigint NOT NULL,
    first_seq integer NOT NULL,          -- the bundle's jobs are seq in [first_seq, end_seq)
    end_seq   integer NOT NULL,
    worker_id text,                      -- the worker process working through it
    PRIMARY KEY (batch_id, first_seq)
);
CREATE INDEX bundles_owned ON bundles (worker_id) WHERE worker_id IS NOT NULL;

-- A batch whose bundles are dispatched: its tasks were last handed to asynq
-- at enqueued_at (NULL: never, or to be handed again at once). One row a
-- batch, stamped once a minute whatever the batch's size: re-stamping each
-- live job (and later each bundle) wrote 8.9 MB of WAL a minute for a
-- paused backlog of 100,000 jobs. The row goes with the batch's last
-- bundle.
CREATE TABLE batch_dispatch (
    batch_id    bigint PRIMARY KEY,
    priority    text NOT NULL,
    max_ms      bigint NOT NULL DEFAULT 0,  -- the batch's time budget (0: the kinds' default)
    enqueued_at timestamptz
);
CREATE INDEX batch_dispatch_due ON batch_dispatch (enqueued_at NULLS FIRST, batch_id);

-- Live bundles of batches stored before this migration (64 jobs a
-- bundle, queue.BundleSize when it was written); the owner of any of a
-- bundle's jobs owns the bundle.
INSERT INTO bundles (batch_id, first_seq, end_seq, worker_id)
SELECT j.batch_id, (j.seq / 64) * 64, (j.seq / 64) * 64 + 64, max(j.worker_id)
FROM jobs j
WHERE j.batch_id IS NOT NULL AND j.state IN ('queued', 'running') AND NOT j.solo AND j.dup_of IS NULL
GROUP BY j.batch_id, j.seq / 64;
INSERT INTO batch_dispatch (batch_id, priority, max_ms, enqueued_at)
SELECT j.batch_id, min(j.priority), max(coalesce(j.max_ms, 0)), min(j.enqueued_at)
FROM jobs j JOIN bundles b ON b.batch_id = j.batch_id AND j.seq >= b.first_seq AND j.seq < b.end_seq
GROUP BY j.batch_id;

-- The dispatcher's per-job index now holds only what travels alone: jobs
-- outside a batch and jobs sent solo.
DROP INDEX jobs_live;
CREATE INDEX jobs_live ON jobs (enqueued_at NULLS FIRST, id)
    WHERE state IN ('queued', 'running') AND dup_of IS NULL AND (batch_id IS NULL OR solo);

-- Job counts, kept as deltas that the statements changing jobs append
-- (the triggers below) and that store.CompactCounts folds now and then: a
-- batch's progress and its report's counts read a few rows of job_counts
-- instead of every job (a 100,000-job batch took 450 ms a poll), and
-- /v1/stats a few rows an hour of hour_counts (15 s for 30 days of
-- 5,100,000 jobs). finished_at: the latest finish among the jobs the delta
-- brought into a final state.
CREATE TABLE job_counts (
    batch_id    bigint NOT NULL,
    kind        text NOT NULL,
    state       job_state NOT NULL,
    verdict     text NOT NULL,           -- '' for none
    cached      boolean NOT NULL,
    n           bigint NOT NULL,
    finished_at timestamptz
);
CREATE INDEX job_counts_batch ON job_counts (batch_id);
-- By the hour of the jobs' creation, all jobs.
CREATE TABLE hour_counts (
    hour    timestamptz NOT NULL,
    kind    text NOT NULL,
    state   job_state NOT NULL,
    verdict text NOT NULL,
    cached  boolean NOT NULL,
    n       bigint NOT NULL
);
CREATE INDEX hour_counts_hour ON hour_counts (hour);

INSERT INTO job_counts (batch_id, kind, state, verdict, cached, n, finished_at)
SELECT batch_id, kind, state, coalesce(verdict, ''), cached, count(*), max(finished_at)
FROM jobs WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5;
INSERT INTO hour_counts (hour, kind, state, verdict, cached, n)
SELECT date_trunc('hour', created_at, 'UTC'), kind, state, coalesce(verdict, ''), cached, count(*)
FROM jobs GROUP BY 1, 2, 3, 4, 5;

-- "Is this batch final?" reads job_counts now.
DROP INDEX jobs_live_batch;

-- +goose StatementBegin
CREATE FUNCTION puzzled_jobs_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    WITH c AS (
        INSERT INTO job_counts (batch_id, kind, state, verdict, cached, n, finished_at)
        SELECT batch_id, kind, state, coalesce(verdict, ''), cached, count(*), max(finished_at)
        FROM new_rows WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5
    )
    INSERT INTO hour_counts (hour, kind, state, verdict, cached, n)
    SELECT date_trunc('hour', created_at, 'UTC'), kind, state, coalesce(verdict, ''), cached, count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4, 5;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER jobs_counted_insert AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION puzzled_jobs_inserted();

-- Every UPDATE of jobs: the counts of the rows whose state, verdict or
-- cached changed move from their old group to their new one, and the jobs
-- that became final are announced on puzzled_final at commit (once per
-- batch, "b<id>", and once per job outside a batch, "j<id>"), as
-- migrations/00005_lists.sql began.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION puzzled_notify_final() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    notified bigint;
BEGIN
    WITH moved AS MATERIALIZED (
        SELECT n.id, n.batch_id, n.created_at, n.kind, o.state AS old_state, coalesce(o.verdict, '') AS old_verdict,
            o.cached AS old_cached, n.state AS new_state, coalesce(n.verdict, '') AS new_verdict,
            n.cached AS new_cached, n.finished_at
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE (n.state, n.verdict, n.cached) IS DISTINCT FROM (o.state, o.verdict, o.cached)
    ), delta AS MATERIALIZED (
        SELECT batch_id, hour, kind, state, verdict, cached, sum(d) AS n, max(fin) AS fin
        FROM (
            SELECT batch_id, date_trunc('hour', created_at, 'UTC') AS hour, kind,
                old_state AS state, old_verdict AS verdict, old_cached AS cached, -1 AS d, NULL::timestamptz AS fin
            FROM moved
            UNION ALL
            SELECT batch_id, date_trunc('hour', created_at, 'UTC'), kind,
                new_state, new_verdict, new_cached, 1,
                CASE WHEN new_state IN ('done', 'failed', 'canceled') THEN finished_at END
            FROM moved
        ) m
        GROUP BY 1, 2, 3, 4, 5, 6
    ), batch AS (
        INSERT INTO job_counts (batch_id, kind, state, verdict, cached, n, finished_at)
        SELECT batch_id, kind, state, verdict, cached, sum(n), max(fin) FROM delta
        WHERE batch_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5
        HAVING sum(n) <> 0 OR max(fin) IS NOT NULL
    ), hourly AS (
        INSERT INTO hour_counts (hour, kind, state, verdict, cached, n)
        SELECT hour, kind, state, verdict, cached, sum(n) FROM delta
        GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0
    )
    SELECT count(pg_notify('puzzled_final', f.k)) INTO notified
    FROM (
        SELECT DISTINCT coalesce('b' || batch_id, 'j' || id) AS k
        FROM moved
        WHERE new_state IN ('done', 'failed', 'canceled') AND old_state IN ('queued', 'running')
    ) f;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- A level's newest definitive result, for GET /v1/levels?verdict=: a row
-- of its own, inserted with the level's first definitive result instead
-- of an UPDATE of the levels row (a dead row version per level, and the
-- level's every index written again). kind and created_at are the
-- level's, so that the list reads this table alone in page order.
CREATE TABLE level_verdicts (
    hash          text PRIMARY KEY,
    kind          text NOT NULL,
    created_at    timestamptz NOT NULL,   -- the level's
    verdict       text NOT NULL,
    result_job_id bigint NOT NULL,
    result_at     timestamptz NOT NULL
);
INSERT INTO level_verdicts (hash, kind, created_at, verdict, result_job_id, result_at)
SELECT hash, kind, created_at, verdict, result_job_id, result_at FROM levels WHERE verdict IS NOT NULL;
DROP INDEX levels_list_verdict;
DROP INDEX levels_list_kind_verdict;
ALTER TABLE levels DROP COLUMN verdict, DROP COLUMN result_job_id, DROP COLUMN result_at;
CREATE INDEX level_verdicts_list ON level_verdicts (verdict, created_at, hash);
CREATE INDEX level_verdicts_list_kind ON level_verdicts (kind, verdict, created_at, hash);

-- The newest result moves forward only: the WHERE of DO UPDATE is checked
-- on the locked row, so when two transactions store results of one level
-- at once the newer wins whichever commits last. Rows are written in hash
-- order, so two statements never lock the same two levels in opposite
-- orders (no deadlock).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION puzzled_level_newest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Each level is read by key (LATERAL … LIMIT 1): with no statistics on
    -- the transition table, a plain join scanned every level.
    INSERT INTO level_verdicts AS v (hash, kind, created_at, verdict, result_job_id, result_at)
    SELECT n.level_hash, l.kind, l.created_at, n.verdict, n.job_id, n.created_at
    FROM (
        SELECT DISTINCT ON (level_hash) level_hash, verdict, job_id, created_at
        FROM new_rows WHERE verdict IN ('solved', 'unsolvable')
        ORDER BY level_hash, created_at DESC, job_id DESC
    ) n CROSS JOIN LATERAL (SELECT kind, created_at FROM levels WHERE hash = n.level_hash LIMIT 1) l
    ORDER BY n.level_hash
    ON CONFLICT (hash) DO UPDATE SET verdict = excluded.verdict, result_job_id = excluded.result_job_id,
        result_at = excluded.result_at
    WHERE (excluded.result_at, excluded.result_job_id) > (v.result_at, v.result_job_id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- A batch's labels are the batch's, stored once: batches.labels and one
-- batch_labels row per string label, instead of a copy in every job's
-- labels and a job_labels row per job and label (4 rows per job for a
-- labelled batch submitted by puzzlectl, and 2 more row versions per job
-- when its verdict was copied into them). A job's labels are the batch's
-- with its own on top (jobs.labels holds only its own); label=k:v lists
-- the jobs with an own label k:v and the jobs of the batches labelled k:v
-- that have no own label k (store/lists.go). level_labels keeps one row
-- per label and level, whichever of the two the label came from.
CREATE TABLE batch_labels (
    key        text NOT NULL,
    value      text NOT NULL,
    created_at timestamptz NOT NULL,  -- the batch's (and its jobs')
    batch_id   bigint NOT NULL,
    PRIMARY KEY (key, value, created_at, batch_id)
);
INSERT INTO batch_labels (key, value, created_at, batch_id)
SELECT e.key, e.value #>> '{}', b.created_at, b.id
FROM batches b, jsonb_each(b.labels) e
WHERE b.labels IS NOT NULL AND jsonb_typeof(b.labels) = 'object' AND jsonb_typeof(e.value) = 'string';

-- Jobs of labelled batches keep only the labels that are not the batch's.
-- Counts and label rows are put right by hand, not by the triggers.
ALTER TABLE jobs DISABLE TRIGGER USER;
UPDATE jobs j SET labels = (
    SELECT nullif(coalesce(jsonb_object_agg(e.key, e.value), '{}'), '{}')
    FROM jsonb_each(j.labels) e WHERE b.labels -> e.key IS DISTINCT FROM e.value)
FROM batches b
WHERE j.batch_id = b.id AND b.labels IS NOT NULL AND jsonb_typeof(b.labels) = 'object'
    AND j.labels IS NOT NULL AND jsonb_typeof(j.labels) = 'object';
ALTER TABLE jobs ENABLE TRIGGER USER;
DELETE FROM job_labels l USING jobs j
WHERE l.job_id = j.id AND j.batch_id IS NOT NULL AND NOT coalesce(j.labels ? l.key, false);

-- Most jobs have no labels of their own now (a batch's are the batch's):
-- the label trigger of inserts returns at once for them.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION puzzled_job_labels_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM new_rows WHERE labels IS NOT NULL) THEN
        RETURN NULL;
    END IF;
    INSERT INTO job_labels (job_id, key, value, created_at, kind, verdict)
    SELECT n.id, e.key, e.value #>> '{}', n.created_at, n.kind, n.verdict
    FROM new_rows n, jsonb_each(n.labels) e
    WHERE n.labels IS NOT NULL AND jsonb_typeof(n.labels) = 'object' AND jsonb_typeof(e.value) = 'string';

    INSERT INTO level_labels (key, value, level_created_at, level_hash)
    SELECT DISTINCT e.key, e.value #>> '{}', l.created_at, l.hash
    FROM new_rows n JOIN levels l ON l.hash = n.level_hash, jsonb_each(n.labels) e
    WHERE n.labels IS NOT NULL AND jsonb_typeof(n.labels) = 'object' AND jsonb_typeof(e.value) = 'string'
    ORDER BY 1, 2, 3, 4  -- one order for every inserter: no deadlock on a row two insert
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE jobs DISABLE TRIGGER USER;
UPDATE jobs j SET labels = b.labels || coalesce(j.labels, '{}')
FROM batches b WHERE j.batch_id = b.id AND b.labels IS NOT NULL;
ALTER TABLE jobs ENABLE TRIGGER USER;
INSERT INTO job_labels (job_id, key, value, created_at, kind, verdict)
SELECT j.id, e.key, e.value #>> '{}', j.created_at, j.kind, j.verdict
FROM jobs j JOIN batches b ON b.id = j.batch_id, jsonb_each(b.labels) e
WHERE b.labels IS NOT NULL AND jsonb_typeof(b.labels) = 'object' AND jsonb_typeof(e.value) = 'string'
ON CONFLICT DO NOTHING;
DROP TABLE batch_labels;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION puzzled_level_newest() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM levels l
    WHERE l.hash IN (SELECT level_hash FROM new_rows WHERE verdict IN ('solved', 'unsolvable'))
    ORDER BY l.hash FOR NO KEY UPDATE;
    UPDATE levels l SET verdict = n.verdict, result_job_id = n.job_id, result_at = n.created_at
    FROM (
        SELECT DISTINCT ON (level_hash) level_hash, verdict, job_id, created_at
        FROM new_rows WHERE verdict IN ('solved', 'unsolvable')
        ORDER BY level_hash, created_at DESC, job_id DESC
    ) n
    WHERE l.hash = n.level_hash
        AND (l.result_at IS NULL OR (n.created_at, n.job_id) > (l.result_at, l.result_job_id));
    RETURN NULL;
END
$$;
-- +goose StatementEnd
ALTER TABLE levels ADD COLUMN verdict text, ADD COLUMN result_job_id bigint, ADD COLUMN result_at timestamptz;
UPDATE levels l SET verdict = v.verdict, result_job_id = v.result_job_id, result_at = v.result_at
FROM level_verdicts v WHERE v.hash = l.hash;
CREATE INDEX levels_list_verdict ON levels (verdict, created_at, hash) WHERE verdict IS NOT NULL;
CREATE INDEX levels_list_kind_verdict ON levels (kind, verdict, created_at, hash) WHERE verdict IS NOT NULL;
DROP TABLE level_verdicts;
DROP TRIGGER jobs_counted_insert ON jobs;
DROP FUNCTION puzzled_jobs_inserted();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION puzzled_notify_final() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('puzzled_final', f.k)
    FROM (
        SELECT DISTINCT coalesce('b' || n.batch_id, 'j' || n.id) AS k
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.state IN ('done', 'failed', 'canceled') AND o.state IN ('queued', 'running')
    ) f;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE INDEX jobs_live_batch ON jobs (batch_id) WHERE state IN ('queued', 'running') AND batch_id IS NOT NULL;
DROP TABLE hour_counts;
DROP TABLE job_counts;
DROP INDEX jobs_live;
CREATE INDEX jobs_live ON jobs (enqueued_at NULLS FIRST, id)
    WHERE state IN ('queued', 'running') AND dup_of IS NULL;
DROP TABLE batch_dispatch;
DROP TABLE bundles;
DROP INDEX jobs_list_level;
CREATE INDEX jobs_list_level ON jobs (level_hash, created_at, id) INCLUDE (labels);
DROP INDEX jobs_list_state;
CREATE INDEX jobs_list_state ON jobs (state, created_at, id);
CREATE INDEX jobs_list_batch ON jobs (batch_id, created_at, id) WHERE batch_id IS NOT NULL;
CREATE INDEX jobs_list_kind ON jobs (kind, created_at, id);
CREATE INDEX levels_list_kind ON levels (kind, created_at, hash);
ALTER TABLE jobs ADD CONSTRAINT jobs_dup_of_fkey FOREIGN KEY (dup_of) REFERENCES jobs (id) NOT VALID;
ALTER TABLE jobs ADD CONSTRAINT jobs_batch_id_fkey FOREIGN KEY (batch_id) REFERENCES batches (id) NOT VALID;
ALTER TABLE results ADD CONSTRAINT results_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id) NOT VALID;
