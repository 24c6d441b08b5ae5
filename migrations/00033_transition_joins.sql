-- +goose Up

-- The two statement triggers that join a jobs UPDATE's old and new rows by
-- id (the rollups and final notices, the webhook outbox) planned that join
-- as a nested loop: PL/pgSQL keeps the plan made at the trigger's first
-- call, when the transition tables held a row or two, and then compared
-- every new row with every old one. On a statement that finishes 256 jobs
-- that is 65,536 comparisons, 7 ms of PostgreSQL's time (27 µs a job of
-- `puzzled bench` (b), issue 29). Without nested loops the planner joins
-- them by hash (or merge), linear in the rows whatever the first call saw.
-- Neither function has another join that a nested loop would serve better
-- (the outbox's join to webhooks reads a handful of rows, and only while a
-- callback wants job events).
ALTER FUNCTION puzzled_notify_final() SET enable_nestloop = off;
ALTER FUNCTION puzzled_webhook_job_outbox() SET enable_nestloop = off;

-- +goose Down
ALTER FUNCTION puzzled_webhook_job_outbox() RESET enable_nestloop;
ALTER FUNCTION puzzled_notify_final() RESET enable_nestloop;
