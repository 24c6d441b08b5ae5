-- +goose Up

-- A generation makes levels from a template and keeps them as the jobs of
-- a batch (docs/generate.md): mode 'generate' deals candidates anew and
-- keeps the solvable ones whose difficulty score lies in a band; mode
-- 'repair' tries edits of growing size of an unsolvable level and keeps
-- the ones that make it solvable. One asynq task works through the
-- candidates in index order; tried, kept and rejected move in the
-- transaction that stores each candidate, so a task that dies resumes at
-- candidate `tried`.
CREATE TABLE generations (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch_id    bigint NOT NULL REFERENCES batches (id),
    mode        text NOT NULL CHECK (mode IN ('generate', 'repair')),
    kind        text NOT NULL,
    template    text NOT NULL,            -- levels.hash of the template (or of the level to repair)
    source_job  bigint REFERENCES jobs (id), -- repair: the job whose level it is
    request     jsonb NOT NULL,           -- count, band, seed, budgets: see store.GenerationRequest
    state       text NOT NULL DEFAULT 'running'
                CHECK (state IN ('running', 'done', 'exhausted', 'canceled', 'failed')),
    tried       integer NOT NULL DEFAULT 0,
    kept        integer NOT NULL DEFAULT 0,
    rejected    jsonb NOT NULL DEFAULT '{}', -- reason → count
    note        text,                     -- why it ended, for people
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);

CREATE INDEX generations_running ON generations (id) WHERE state = 'running';

-- +goose Down
DROP TABLE generations;
