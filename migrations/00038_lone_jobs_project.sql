-- +goose Up

-- A scoped token's GET /v1/stats sums the counters of its projects'
-- batches (job_counts, batch_hist); the jobs posted one by one, outside a
-- batch, have no counter by project, so it reads them from jobs and
-- results (store.projectRollup). This index finds a project's such jobs in
-- a window. Partial, so that a batch's jobs (nearly all jobs) add no entry
-- to it; and its columns never change after the insert, so the updates of
-- a job (state, verdict, enqueued_at, ...) stay HOT-eligible as before.
CREATE INDEX jobs_lone_project ON jobs (project_id, created_at) WHERE batch_id IS NULL;

-- +goose Down
DROP INDEX jobs_lone_project;
