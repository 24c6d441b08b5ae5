-- +goose Up

-- The size and entries of each index right after the collector last
-- rebuilt it (store/rebuild.go): a collection rebuilds an index of the
-- tables it deletes from once it takes much more room per entry than
-- then.
CREATE TABLE index_builds (
    name     text PRIMARY KEY,
    bytes    bigint NOT NULL,
    entries  float8 NOT NULL,
    built_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE index_builds;
