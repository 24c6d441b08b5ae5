-- +goose Up

-- The best line so far of a running search (solver.Best: plan, moves,
-- details), read out of each checkpoint's envelope when it is saved, so
-- that a running job's page shows it without reading the blob (up to a
-- megabyte for a big sheep level) at every poll. NULL for kinds whose
-- search keeps no best line, and before its first improvement.
ALTER TABLE checkpoints ADD COLUMN best jsonb;

-- +goose Down
ALTER TABLE checkpoints DROP COLUMN best;
