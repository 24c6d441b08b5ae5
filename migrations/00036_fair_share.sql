-- +goose Up

-- Fair share of bulk work between projects (issue 31, docs/service.md,
-- "Fair share of bulk work between projects"). The dispatcher hands bulk
-- tasks to asynq only as fast as the workers take them (about 100 ms of
-- work waits in Redis), and gives each free place to the project with the
-- fewest bulk tasks running for its weight, under its cap. Interactive and resumed work is
-- not admitted this way: it goes ahead of all bulk work, as before.
--
-- bulk_weight: a project's share is its weight over the weights of the
-- projects that have bulk work waiting. bulk_cap: the most bulk tasks
-- (a bundle of a batch, or one job) it may have in flight (NULL: none).
ALTER TABLE projects ADD COLUMN bulk_weight integer NOT NULL DEFAULT 1 CHECK (bulk_weight BETWEEN 1 AND 1000),
    ADD COLUMN bulk_cap integer CHECK (bulk_cap > 0);

-- A bulk batch's bundles are admitted in seq order: those whose first_seq
-- is below admit_below are (or were) handed to asynq; the others wait.
-- NULL, the value of the rows that exist now: all of its bundles are
-- admitted, as before this migration. project_id saves the dispatcher a
-- join on batches.
ALTER TABLE batch_dispatch ADD COLUMN admit_below integer,
    ADD COLUMN project_id bigint NOT NULL DEFAULT 1;
ALTER TABLE batch_dispatch ALTER COLUMN admit_below SET DEFAULT 0;
UPDATE batch_dispatch d SET project_id = b.project_id FROM batches b WHERE b.id = d.batch_id AND b.project_id <> 1;

-- Bulk jobs that travel alone (outside a batch, or sent solo) and were
-- never handed to asynq wait for admission; jobs_waiting finds them per
-- project. The dispatcher's own index (jobs_live) leaves them out, so that
-- its rounds do not step over a backlog of them.
CREATE INDEX jobs_waiting ON jobs (project_id, id)
    WHERE state IN ('queued', 'running') AND dup_of IS NULL AND (batch_id IS NULL OR solo)
        AND enqueued_at IS NULL AND priority = 'bulk' AND recoveries = 0;
DROP INDEX jobs_live;
CREATE INDEX jobs_live ON jobs (enqueued_at NULLS FIRST, id)
    WHERE state IN ('queued', 'running') AND dup_of IS NULL AND (batch_id IS NULL OR solo)
        AND NOT (enqueued_at IS NULL AND priority = 'bulk' AND recoveries = 0);

-- +goose Down
DROP INDEX jobs_live;
CREATE INDEX jobs_live ON jobs (enqueued_at NULLS FIRST, id)
    WHERE state IN ('queued', 'running') AND dup_of IS NULL AND (batch_id IS NULL OR solo);
DROP INDEX jobs_waiting;
ALTER TABLE batch_dispatch DROP COLUMN project_id, DROP COLUMN admit_below;
ALTER TABLE projects DROP COLUMN bulk_cap, DROP COLUMN bulk_weight;
