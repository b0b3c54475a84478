-- Schema v12 (hermes-agent 31a010010): the platform's own id of a message (a Telegram
-- or Yuanbao message id), for exact-id recall, and a partial index over the rows
-- that have one.

-- +goose Up
ALTER TABLE messages ADD COLUMN "platform_message_id" TEXT;
CREATE INDEX IF NOT EXISTS idx_messages_platform_msg_id ON messages(session_id, platform_message_id) WHERE platform_message_id IS NOT NULL;

-- +goose Down
DROP INDEX IF EXISTS idx_messages_platform_msg_id;
ALTER TABLE messages DROP COLUMN "platform_message_id";
