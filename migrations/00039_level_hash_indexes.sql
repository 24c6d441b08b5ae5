-- +goose Up

-- A level's jobs and results are found through hash indexes on level_hash
-- instead of the btrees (level_hash, created_at, id) and (level_hash,
-- created_at, job_id). A job writes a jobs entry twice (its insert, and its
-- finish, which is not a HOT update) and a results entry once, and both
-- btrees' keys began with a random 64-character hash: each entry a descent
-- of text comparisons to a random leaf, page splits all over the index,
-- about 90 bytes an entry. A hash index entry is the 4-byte hash code and
-- the row's address. A lookup by level stays one probe; a level's jobs and
-- results are few (a level resubmitted every day for a year has a few
-- hundred), so the pages that list them newest first sort them after it.
-- Measured with `puzzled bench` (docs/benchmarks.md, 2026-12-05).
DROP INDEX jobs_list_level;
CREATE INDEX jobs_level ON jobs USING hash (level_hash);
DROP INDEX results_level_created;
CREATE INDEX results_level ON results USING hash (level_hash);

-- +goose Down
DROP INDEX results_level;
CREATE INDEX results_level_created ON results (level_hash, created_at, job_id);
DROP INDEX jobs_level;
CREATE INDEX jobs_list_level ON jobs (level_hash, created_at, id);
