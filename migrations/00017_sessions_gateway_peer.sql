-- Schema v17 (hermes-agent 86e64900b): the gateway's routing key and peer (chat,
-- chat type, thread) on each session, and the indexes that find a peer's latest
-- session.

-- +goose Up
ALTER TABLE sessions ADD COLUMN "session_key" TEXT;
ALTER TABLE sessions ADD COLUMN "chat_id" TEXT;
ALTER TABLE sessions ADD COLUMN "chat_type" TEXT;
ALTER TABLE sessions ADD COLUMN "thread_id" TEXT;
CREATE INDEX IF NOT EXISTS idx_sessions_session_key
    ON sessions(session_key, started_at DESC);
CREATE INDEX IF NOT EXISTS idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC);

-- +goose Down
DROP INDEX IF EXISTS idx_sessions_gateway_peer;
DROP INDEX IF EXISTS idx_sessions_session_key;
ALTER TABLE sessions DROP COLUMN "thread_id";
ALTER TABLE sessions DROP COLUMN "chat_type";
ALTER TABLE sessions DROP COLUMN "chat_id";
ALTER TABLE sessions DROP COLUMN "session_key";
