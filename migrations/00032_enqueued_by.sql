-- +goose Up

-- Which worker's dispatcher last stamped a job or a batch as handed to
-- asynq (ClaimLiveJobs, ClaimLiveBatches). A dispatcher killed between its
-- stamp and its enqueues left jobs stamped with no task, which waited for
-- the stale check (a minute); the jobs and batches a dead worker stamped
-- in that minute are now dispatched again as soon as it is judged dead
-- (store.TakeOverJobs). NULL: stamped by a dispatcher outside a worker.
ALTER TABLE jobs ADD COLUMN enqueued_by text;
ALTER TABLE batch_dispatch ADD COLUMN enqueued_by text;

-- +goose Down
ALTER TABLE batch_dispatch DROP COLUMN enqueued_by;
ALTER TABLE jobs DROP COLUMN enqueued_by;
