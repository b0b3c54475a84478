-- Schema v8: api_call_count per session (the renumbered former v7).
--
-- state_meta, a free key/value table (the original writes last_auto_prune into it),
-- arrived with the code of the same days (hermes-agent b8663813b) without a version
-- of its own: the original's SCHEMA_SQL creates it on every open, whatever the
-- version. It is created here, IF NOT EXISTS because a file the original opened at
-- any version may already have it.

-- +goose Up
ALTER TABLE sessions ADD COLUMN "api_call_count" INTEGER DEFAULT 0;

CREATE TABLE IF NOT EXISTS state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);

-- +goose Down
DROP TABLE IF EXISTS state_meta;
ALTER TABLE sessions DROP COLUMN "api_call_count";
