-- Schema v19 (hermes-agent 94205a113): the gateway's routing index, moved from
-- sessions.json into the database; entry_json is the gateway's own text.

-- +goose Up
CREATE TABLE IF NOT EXISTS gateway_routing (
    scope TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, session_key)
);

-- +goose Down
DROP TABLE IF EXISTS gateway_routing;
