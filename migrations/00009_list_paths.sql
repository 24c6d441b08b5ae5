-- +goose Up

-- Access paths that read about `limit` index entries per list page
-- whatever the table size (issue 16). 00005 served label filters with a
-- GIN index on jobs.labels, which yields matches in no order: a page had
-- either to collect every match and sort it (a rare label) or to walk the
-- newest jobs and filter them (what the planner did, 418 ms p95 for a
-- label on 0.2 % of 1,000,000 jobs). Levels filtered by the verdict of
-- their newest definitive result, or by a label of one of their jobs,
-- were found by probing each level in turn.

-- One row per string-valued label of a job (batch labels included, since
-- CreateBatch copies them into jobs.labels), kept in step with jobs by the
-- triggers below. kind never changes; verdict follows jobs.verdict. Only
-- string values are listed: label=key:value matches a string.
CREATE TABLE job_labels (
    job_id     bigint NOT NULL,
    key        text NOT NULL,
    value      text NOT NULL,
    created_at timestamptz NOT NULL,  -- the job's
    kind       text NOT NULL,         -- the job's
    verdict    text,                  -- the job's, as it changes
    PRIMARY KEY (job_id, key)
);
-- label=k:v in page order; kind and verdict are included so that a label
-- combined with kind= or verdict= filters in the index, without the heap.
CREATE INDEX job_labels_list ON job_labels (key, value, created_at, job_id) INCLUDE (kind, verdict);
-- label + kind + verdict (+ since/until): "every unsolvable sheep job of
-- chapter 3 this week" reads exactly the page.
CREATE INDEX job_labels_kind_verdict ON job_labels (key, value, kind, verdict, created_at, job_id);
-- The planner's estimate of key = … AND value = … must not assume the two
-- independent: one value of "project" is 10 % of the rows with that key.
CREATE STATISTICS job_labels_kv (ndistinct, mcv) ON key, value FROM job_labels;

-- The distinct levels having a job with a label, in the levels' page order
-- (levels.created_at, hash): GET /v1/levels?label=.
CREATE TABLE level_labels (
    key              text NOT NULL,
    value            text NOT NULL,
    level_created_at timestamptz NOT NULL,
    level_hash       text NOT NULL,
    PRIMARY KEY (key, value, level_created_at, level_hash)
);
CREATE STATISTICS level_labels_kv (ndistinct, mcv) ON key, value FROM level_labels;

-- The newest definitive result of each level (by results (created_at,
-- job_id)), maintained when results are written: GET /v1/levels?verdict=
-- reads it in page order and joins the result by its primary key.
ALTER TABLE levels ADD COLUMN verdict text;
ALTER TABLE levels ADD COLUMN result_job_id bigint;
ALTER TABLE levels ADD COLUMN result_at timestamptz;
CREATE INDEX levels_list_verdict ON levels (verdict, created_at, hash) WHERE verdict IS NOT NULL;
CREATE INDEX levels_list_kind_verdict ON levels (kind, verdict, created_at, hash) WHERE verdict IS NOT NULL;

-- The GIN index is no longer read by a list.
DROP INDEX jobs_list_labels;
ALTER TABLE jobs ALTER COLUMN labels SET STATISTICS -1;

-- Statement-level triggers: one INSERT … SELECT per statement, so a
-- 100,000-job batch COPY costs set operations, not 100,000 calls.
-- +goose StatementBegin
CREATE FUNCTION puzzled_job_labels_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
CREATE TRIGGER jobs_labels_insert AFTER INSERT ON jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION puzzled_job_labels_insert();

-- A job's verdict is set when its result is stored (and cleared if it is
-- retried); labels do not change today, but if they do, the rows follow.
-- level_labels keeps a level once seen with a label (a level's jobs are
-- never deleted). A row trigger whose WHEN is checked before any function
-- call: most updates of jobs move states, of jobs without labels, and a
-- statement trigger joining the transition tables on each of them halved
-- end-to-end throughput (puzzled bench: 2,116 against 3,885 jobs/s).
-- +goose StatementBegin
CREATE FUNCTION puzzled_job_labels_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.labels IS NOT DISTINCT FROM OLD.labels THEN
        UPDATE job_labels SET verdict = NEW.verdict WHERE job_id = NEW.id;
        RETURN NULL;
    END IF;
    DELETE FROM job_labels WHERE job_id = NEW.id;
    IF jsonb_typeof(NEW.labels) = 'object' THEN
        INSERT INTO job_labels (job_id, key, value, created_at, kind, verdict)
        SELECT NEW.id, e.key, e.value #>> '{}', NEW.created_at, NEW.kind, NEW.verdict
        FROM jsonb_each(NEW.labels) e WHERE jsonb_typeof(e.value) = 'string';
        INSERT INTO level_labels (key, value, level_created_at, level_hash)
        SELECT e.key, e.value #>> '{}', l.created_at, l.hash
        FROM levels l, jsonb_each(NEW.labels) e
        WHERE l.hash = NEW.level_hash AND jsonb_typeof(e.value) = 'string'
        ORDER BY 1, 2
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER jobs_labels_update AFTER UPDATE OF verdict, labels ON jobs
    FOR EACH ROW
    WHEN ((OLD.labels IS NOT NULL OR NEW.labels IS NOT NULL)
        AND (OLD.verdict IS DISTINCT FROM NEW.verdict OR OLD.labels IS DISTINCT FROM NEW.labels))
    EXECUTE FUNCTION puzzled_job_labels_update();

-- A level's newest definitive result moves forward only: the WHERE is
-- re-checked on the locked row when two transactions store results of the
-- same level at once, so the newer one wins whichever commits last.
-- Results are never updated or deleted. The level rows are locked first
-- in hash order: two bundles finishing the same levels in another order
-- would otherwise deadlock.
-- +goose StatementBegin
CREATE FUNCTION puzzled_level_newest() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER results_level_newest AFTER INSERT ON results
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION puzzled_level_newest();

-- Backfill.
INSERT INTO job_labels (job_id, key, value, created_at, kind, verdict)
SELECT j.id, e.key, e.value #>> '{}', j.created_at, j.kind, j.verdict
FROM jobs j, jsonb_each(j.labels) e
WHERE j.labels IS NOT NULL AND jsonb_typeof(j.labels) = 'object' AND jsonb_typeof(e.value) = 'string';
INSERT INTO level_labels (key, value, level_created_at, level_hash)
SELECT DISTINCT e.key, e.value #>> '{}', l.created_at, l.hash
FROM jobs j JOIN levels l ON l.hash = j.level_hash, jsonb_each(j.labels) e
WHERE j.labels IS NOT NULL AND jsonb_typeof(j.labels) = 'object' AND jsonb_typeof(e.value) = 'string';
UPDATE levels l SET verdict = r.verdict, result_job_id = r.job_id, result_at = r.created_at
FROM (
    SELECT DISTINCT ON (level_hash) level_hash, verdict, job_id, created_at
    FROM results WHERE verdict IN ('solved', 'unsolvable')
    ORDER BY level_hash, created_at DESC, job_id DESC
) r
WHERE l.hash = r.level_hash;

-- +goose Down
DROP TRIGGER results_level_newest ON results;
DROP FUNCTION puzzled_level_newest();
DROP TRIGGER jobs_labels_update ON jobs;
DROP FUNCTION puzzled_job_labels_update();
DROP TRIGGER jobs_labels_insert ON jobs;
DROP FUNCTION puzzled_job_labels_insert();
ALTER TABLE jobs ALTER COLUMN labels SET STATISTICS 1000;
CREATE INDEX jobs_list_labels ON jobs USING gin (labels jsonb_path_ops) WHERE labels IS NOT NULL;
DROP INDEX levels_list_kind_verdict;
DROP INDEX levels_list_verdict;
ALTER TABLE levels DROP COLUMN result_at;
ALTER TABLE levels DROP COLUMN result_job_id;
ALTER TABLE levels DROP COLUMN verdict;
DROP TABLE level_labels;
DROP TABLE job_labels;
