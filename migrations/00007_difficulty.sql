-- +goose Up

-- Difficulty figures of a definitive result (package solver/difficulty):
-- win rates of a random and a greedy player, winning-move shares, plan
-- lengths, search effort and a 1–10 score. NULL for kinds or modes that
-- are not rated and for results stored before this column.
ALTER TABLE results ADD COLUMN difficulty jsonb;

-- +goose Down
ALTER TABLE results DROP COLUMN difficulty;
