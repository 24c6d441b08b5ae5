-- +goose Up

-- The job's difficulty option (docs/difficulty.md): playouts per player of
-- its figures. NULL: the worker's default (-difficulty-playouts); 0: no
-- figures (the default of bulk jobs, set when they are submitted).
ALTER TABLE jobs ADD COLUMN difficulty_playouts integer
    CHECK (difficulty_playouts BETWEEN 0 AND 100000);

-- +goose Down
ALTER TABLE jobs DROP COLUMN difficulty_playouts;
