-- Schema v14 (hermes-agent a30480bd2): one compression at a time per session, as a
-- row with a holder and an expiry (epoch seconds).

-- +goose Up
CREATE TABLE IF NOT EXISTS compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_compression_locks_expires ON compression_locks(expires_at);

-- +goose Down
DROP TABLE IF EXISTS compression_locks;
