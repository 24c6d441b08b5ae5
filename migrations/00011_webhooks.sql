-- +goose Up

-- Webhooks (docs/webhooks.md): a batch or a job names callback URLs;
-- puzzled POSTs signed events to them when the batch (job) is finished, and
-- optionally as its jobs finish, retried with backoff through asynq.

-- The HMAC keys that sign an owner's events. owner is who the key belongs
-- to: "token:<id>" for a stored API token, "static:<name>" for one from
-- configuration, "anonymous" when the API needs no token. Projects will own
-- keys too ("project:<id>"), so this is text, not a foreign key. The key is
-- kept as it is (signing needs it); the API shows it once, at creation.
CREATE TABLE webhook_secrets (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner      text NOT NULL,
    secret     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX webhook_secrets_owner ON webhook_secrets (owner, id) WHERE revoked_at IS NULL;

-- One callback URL of a batch or of a job outside a batch. finished_at is
-- set when its final event (batch.finished, batch.canceled, job.finished,
-- job.canceled) is created; until then the emitter watches it.
CREATE TABLE webhooks (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch_id    bigint REFERENCES batches (id),
    job_id      bigint REFERENCES jobs (id),
    url         text NOT NULL,
    owner       text NOT NULL,
    job_events  boolean NOT NULL DEFAULT false, -- also batch.jobs_finished events as jobs finish
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    CHECK ((batch_id IS NULL) <> (job_id IS NULL))
);
CREATE INDEX webhooks_batch ON webhooks (batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX webhooks_job ON webhooks (job_id) WHERE job_id IS NOT NULL;
CREATE INDEX webhooks_pending ON webhooks (id) WHERE finished_at IS NULL;
CREATE INDEX webhooks_job_events ON webhooks (batch_id) WHERE job_events AND finished_at IS NULL;

-- Jobs that finished (done or failed; never canceled) in a batch whose
-- callback wants job events, until the emitter sends them together in one
-- batch.jobs_finished event. Filled by the trigger below, in the statement
-- that finishes the jobs, so that none is missed or counted twice.
CREATE TABLE webhook_job_outbox (
    webhook_id bigint NOT NULL REFERENCES webhooks (id),
    job_id     bigint NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (webhook_id, job_id)
);

-- An event to deliver to one callback URL. body is the exact JSON sent
-- (and signed) at every attempt; the id in it lets the receiver drop
-- repeats. generation counts redeliveries asked for by a user: each runs
-- the retry schedule afresh, in an asynq task of its own.
CREATE TABLE webhook_events (
    id              text PRIMARY KEY,
    webhook_id      bigint NOT NULL REFERENCES webhooks (id),
    type            text NOT NULL,
    body            text NOT NULL,
    state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    generation      integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    enqueued_at     timestamptz,
    next_attempt_at timestamptz,
    delivered_at    timestamptz,
    last_error      text
);
-- At most one final event per callback.
CREATE UNIQUE INDEX webhook_events_final ON webhook_events (webhook_id)
    WHERE type IN ('batch.finished', 'batch.canceled', 'job.finished', 'job.canceled');
CREATE INDEX webhook_events_webhook ON webhook_events (webhook_id, created_at);
-- The emitter's sweep: pending events whose task may have been lost.
CREATE INDEX webhook_events_pending ON webhook_events (enqueued_at NULLS FIRST) WHERE state = 'pending';

-- The delivery log: one row per attempt.
CREATE TABLE webhook_deliveries (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    text NOT NULL REFERENCES webhook_events (id),
    attempt     integer NOT NULL,
    generation  integer NOT NULL,
    started_at  timestamptz NOT NULL,
    duration_ms integer NOT NULL,
    status_code integer,  -- NULL: no answer (refused, timeout, network)
    error       text,     -- NULL: delivered
    response    text      -- the first bytes of the answer
);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, id);

-- Statement-level, like jobs_notify_final, and sharing its transition
-- tables. It costs one index probe per statement while no callback wants
-- job events.
-- +goose StatementBegin
CREATE FUNCTION puzzled_webhook_job_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM webhooks WHERE job_events AND finished_at IS NULL) THEN
        RETURN NULL;
    END IF;
    INSERT INTO webhook_job_outbox (webhook_id, job_id)
    SELECT w.id, n.id
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    JOIN webhooks w ON w.batch_id = n.batch_id AND w.job_events AND w.finished_at IS NULL
    WHERE n.batch_id IS NOT NULL AND n.state IN ('done', 'failed') AND o.state IN ('queued', 'running')
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER jobs_webhook_outbox AFTER UPDATE ON jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION puzzled_webhook_job_outbox();

-- +goose Down
DROP TRIGGER jobs_webhook_outbox ON jobs;
DROP FUNCTION puzzled_webhook_job_outbox();
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhook_job_outbox;
DROP TABLE webhooks;
DROP TABLE webhook_secrets;
