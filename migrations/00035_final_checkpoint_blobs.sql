-- +goose Up

-- A final job's checkpoint blob is dropped (store.DropFinalCheckpoints, a
-- dispatcher chore): it only served to resume the job, and it is the
-- biggest thing a job leaves (27 KB to 1 MB for a big sheep level), kept
-- forever until now (issue 31). The row's summary stays: nodes, sequence,
-- time and best line still show on the job's page.
ALTER TABLE checkpoints ALTER COLUMN blob DROP NOT NULL;

-- The chore's work list: the rows that still hold a blob, which are those
-- of live jobs and of jobs that ended since the chore's last pass. Without
-- it each pass would read every checkpoint row ever written.
CREATE INDEX checkpoints_holding_blob ON checkpoints (job_id) WHERE blob IS NOT NULL;

-- +goose Down
DROP INDEX checkpoints_holding_blob;
UPDATE checkpoints SET blob = '' WHERE blob IS NULL;
ALTER TABLE checkpoints ALTER COLUMN blob SET NOT NULL;
