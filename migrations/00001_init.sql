-- +goose Up

-- A level is stored once, keyed by the SHA-256 (hex) of its canonical JSON.
CREATE TABLE levels (
    hash       text PRIMARY KEY CHECK (length(hash) = 64),
    kind       text NOT NULL,
    body       jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE batches (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    total       integer NOT NULL,
    priority    text NOT NULL,
    labels      jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    canceled_at timestamptz
);

CREATE TYPE job_state AS ENUM ('queued', 'running', 'done', 'failed', 'canceled');

CREATE TABLE jobs (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch_id     bigint REFERENCES batches (id),
    seq          integer,                 -- position in the batch, 0-based
    -- No foreign key: jobs are only created in the transaction that stores
    -- their level, and a per-row check costs seconds on a 100,000-job COPY.
    level_hash   text NOT NULL,
    kind         text NOT NULL,
    state        job_state NOT NULL DEFAULT 'queued',
    priority     text NOT NULL,           -- asynq queue: interactive | bulk
    max_nodes    bigint,
    max_ms       bigint,
    labels       jsonb,
    attempts     integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL DEFAULT 5,
    cached       boolean NOT NULL DEFAULT false,
    -- A later copy of a level already in the same batch waits for the first
    -- copy (dup_of) instead of solving it again; see store.FinishJob.
    dup_of       bigint REFERENCES jobs (id),
    error        text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    enqueued_at  timestamptz,             -- last time a task was handed to asynq (or found alive)
    started_at   timestamptz,
    finished_at  timestamptz,
    CHECK ((batch_id IS NULL) = (seq IS NULL))
);

-- Results of a batch in submission order, and counts per state.
CREATE UNIQUE INDEX jobs_batch_seq ON jobs (batch_id, seq) WHERE batch_id IS NOT NULL;
-- The dispatcher/reconciler scans only live jobs.
CREATE INDEX jobs_live ON jobs (enqueued_at NULLS FIRST, id)
    WHERE state IN ('queued', 'running') AND dup_of IS NULL;
CREATE INDEX jobs_dup_of ON jobs (dup_of) WHERE dup_of IS NOT NULL;

-- One result per job: the primary key makes retried or duplicated tasks idempotent.
CREATE TABLE results (
    job_id         bigint PRIMARY KEY REFERENCES jobs (id),
    level_hash     text NOT NULL,          -- always the job's level_hash
    solver_version text NOT NULL,
    verdict        text NOT NULL CHECK (verdict IN ('solved', 'unsolvable', 'unknown')),
    value          bigint,
    optimal        boolean NOT NULL DEFAULT false,
    proof          text,
    plan           jsonb,
    details        jsonb,
    stats          jsonb NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- "Has this exact level been solved?" and the dedup of new jobs.
CREATE INDEX results_definitive ON results (level_hash, solver_version, job_id)
    WHERE verdict IN ('solved', 'unsolvable');

-- The last checkpoint of a running search, overwritten in place.
CREATE TABLE checkpoints (
    job_id     bigint PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    seq        integer NOT NULL,
    nodes      bigint NOT NULL,
    blob       bytea NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE checkpoints;
DROP TABLE results;
DROP TABLE jobs;
DROP TYPE job_state;
DROP TABLE batches;
DROP TABLE levels;
