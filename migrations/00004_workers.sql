-- +goose Up

-- Every `puzzled work` process registers here and beats every second; a
-- worker whose beat is older than a few seconds is dead (see store/workers.go).
CREATE TABLE workers (
    id            text PRIMARY KEY,
    host          text NOT NULL,
    pid           integer NOT NULL,
    started_at    timestamptz NOT NULL DEFAULT now(),
    heartbeat_at  timestamptz NOT NULL DEFAULT now(),
    -- Start of the worker's current run of unbroken beats: a worker that
    -- could not reach PostgreSQL for a while does not judge others dead
    -- until it has beaten long enough itself.
    beating_since timestamptz NOT NULL DEFAULT now()
);

-- The worker process that holds a live job: running it, or holding it in
-- a bundle it is working through. A job whose owner is alive is never
-- started again; a dead owner's jobs are taken over by a live dispatcher.
ALTER TABLE jobs ADD COLUMN worker_id text;
-- How often the job was taken back from a worker (handed back at shutdown,
-- or taken over from a dead one): its task id carries it, and such a job
-- resumes in the resumed queue, ahead of jobs never started.
ALTER TABLE jobs ADD COLUMN recoveries integer NOT NULL DEFAULT 0;
CREATE INDEX jobs_owned ON jobs (worker_id)
    WHERE worker_id IS NOT NULL AND state IN ('queued', 'running');

-- +goose Down
DROP INDEX jobs_owned;
ALTER TABLE jobs DROP COLUMN recoveries;
ALTER TABLE jobs DROP COLUMN worker_id;
DROP TABLE workers;
