-- +goose Up

-- Retention (issue 31, docs/service.md "Retention"). A project may keep its
-- final jobs, their labels and batch records for a while only (retain;
-- NULL, the default: forever). The garbage collector (store/retention.go:
-- `puzzled gc` and a periodic pass of the dispatcher) deletes them in small
-- transactions, except, unless keep_results is false, the job holding each
-- level's newest definitive result in the project: a studio comes for the
-- solved answer of its levels, and that job row is what every read of it
-- (the level's page, the result cache, GET /v1/jobs/{id}) already goes
-- through.
ALTER TABLE projects ADD COLUMN retain interval CHECK (retain >= interval '1 hour'),
    ADD COLUMN keep_results boolean NOT NULL DEFAULT true;

-- The collector's ways in: a project's old batches, and its old jobs posted
-- outside a batch. jobs_single never holds a batch's job, and its columns
-- never change, so it costs a batch nothing and no update loses HOT for it.
CREATE INDEX batches_project_created ON batches (project_id, created_at, id);
CREATE INDEX jobs_single ON jobs (project_id, created_at, id) WHERE batch_id IS NULL;

-- Deleting a job or a batch checks the rows that refer to it: without these
-- indexes each deleted row would scan the whole referring table. A
-- repair's source job may expire before its generation: the generation
-- then no longer names it.
CREATE INDEX generations_batch ON generations (batch_id);
CREATE INDEX generations_source_job ON generations (source_job) WHERE source_job IS NOT NULL;
ALTER TABLE generations DROP CONSTRAINT generations_source_job_fkey,
    ADD CONSTRAINT generations_source_job_fkey FOREIGN KEY (source_job) REFERENCES jobs(id) ON DELETE SET NULL;

-- Levels whose last job the collector deleted: a level is deleted in a
-- step of its own (it needs a short table lock against a submission
-- reusing it, which may have to wait), so the candidates are noted here,
-- in the transaction that deleted the jobs, and survive a crash between
-- the two steps.
CREATE TABLE gc_levels (hash text PRIMARY KEY);

-- A level's label rows, found when the level goes. level_labels is written
-- only for labels of levels stored before (a batch's new levels are found
-- through the batch), so this index costs a batch of new levels nothing.
CREATE INDEX level_labels_level ON level_labels (level_hash);

-- +goose Down
DROP INDEX level_labels_level;
DROP TABLE gc_levels;
ALTER TABLE generations DROP CONSTRAINT generations_source_job_fkey,
    ADD CONSTRAINT generations_source_job_fkey FOREIGN KEY (source_job) REFERENCES jobs(id);
DROP INDEX generations_source_job;
DROP INDEX generations_batch;
DROP INDEX jobs_single;
DROP INDEX batches_project_created;
ALTER TABLE projects DROP COLUMN keep_results, DROP COLUMN retain;
