-- +goose Up

-- Bulk jobs travel in bundles: one asynq task carries the jobs of a batch
-- whose seq falls in one block of queue.BundleSize (see docs/service.md).
-- A job set solo travels alone in a task of its own (job:<id>) from then on:
-- a slow level, a retried bundle, a released duplicate.
ALTER TABLE jobs ADD COLUMN solo boolean NOT NULL DEFAULT false;

-- The verdict of a done job, copied from its result in the statement that
-- stores the result, so that counting a batch's progress by verdict reads
-- only the jobs of the batch, without a join on results.
ALTER TABLE jobs ADD COLUMN verdict text;
UPDATE jobs SET verdict = r.verdict FROM results r WHERE r.job_id = jobs.id;

-- +goose Down
ALTER TABLE jobs DROP COLUMN verdict;
ALTER TABLE jobs DROP COLUMN solo;
