-- +goose Up

-- Lists (GET /v1/jobs, /v1/batches, /v1/levels, /v1/levels/{hash}/results)
-- page newest first by (created_at, id) with a keyset cursor. Each filter
-- has an index that yields its rows in that order, so a page reads about
-- `limit` index entries whatever the table size (see store/lists.go).
CREATE INDEX jobs_list_created ON jobs (created_at, id);
CREATE INDEX jobs_list_batch ON jobs (batch_id, created_at, id) WHERE batch_id IS NOT NULL;
CREATE INDEX jobs_list_kind ON jobs (kind, created_at, id);
CREATE INDEX jobs_list_state ON jobs (state, created_at, id);
CREATE INDEX jobs_list_verdict ON jobs (verdict, created_at, id) WHERE verdict IS NOT NULL;
-- labels is included so that GET /v1/levels?label= probes a level's jobs
-- without reading their rows.
CREATE INDEX jobs_list_level ON jobs (level_hash, created_at, id) INCLUDE (labels);
-- label=key:value is containment (labels @> '{"key":"value"}').
CREATE INDEX jobs_list_labels ON jobs USING gin (labels jsonb_path_ops) WHERE labels IS NOT NULL;
-- The planner estimates labels @> … from the most common label sets: keep
-- many, so that a rare label is known rare and read through the GIN index
-- rather than by walking the newest jobs until 100 match.
ALTER TABLE jobs ALTER COLUMN labels SET STATISTICS 1000;
-- "Is this batch final?" for long-polls: only live jobs are indexed.
CREATE INDEX jobs_live_batch ON jobs (batch_id) WHERE state IN ('queued', 'running') AND batch_id IS NOT NULL;

CREATE INDEX batches_list_created ON batches (created_at, id);
CREATE INDEX batches_list_labels ON batches USING gin (labels jsonb_path_ops) WHERE labels IS NOT NULL;

CREATE INDEX levels_list_created ON levels (created_at, hash);
CREATE INDEX levels_list_kind ON levels (kind, created_at, hash);

-- Every result of a level, newest first; also the newest definitive one.
CREATE INDEX results_level_created ON results (level_hash, created_at, job_id);

-- Labels given to a batch apply to its jobs: they are copied into
-- jobs.labels when the batch is stored (store.CreateBatch), so that one
-- index answers label filters. Earlier batches get theirs here.
UPDATE jobs j SET labels = b.labels || coalesce(j.labels, '{}')
FROM batches b WHERE j.batch_id = b.id AND b.labels IS NOT NULL;

-- Long-polls wait for a notification instead of polling: every statement
-- that moves jobs from a live state (queued, running) to a final one
-- notifies channel puzzled_final once per batch ("b<id>") and once per job
-- outside a batch ("j<id>"). A waiter on a batch's job listens for its
-- batch's key and re-reads its job. Notifications are sent at commit.
-- +goose StatementBegin
CREATE FUNCTION puzzled_notify_final() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER jobs_notify_final AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION puzzled_notify_final();

-- +goose Down
ALTER TABLE jobs ALTER COLUMN labels SET STATISTICS -1;
DROP TRIGGER jobs_notify_final ON jobs;
DROP FUNCTION puzzled_notify_final();
DROP INDEX results_level_created;
DROP INDEX levels_list_kind;
DROP INDEX levels_list_created;
DROP INDEX batches_list_labels;
DROP INDEX batches_list_created;
DROP INDEX jobs_live_batch;
DROP INDEX jobs_list_labels;
DROP INDEX jobs_list_level;
DROP INDEX jobs_list_verdict;
DROP INDEX jobs_list_state;
DROP INDEX jobs_list_kind;
DROP INDEX jobs_list_batch;
DROP INDEX jobs_list_created;
