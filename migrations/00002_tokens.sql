-- +goose Up

-- API tokens; only the SHA-256 of a token is stored.
CREATE TABLE api_tokens (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL,
    hash       bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    read_only  boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE api_tokens;
