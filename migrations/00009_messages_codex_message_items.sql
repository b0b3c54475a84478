-- Schema v9: codex_message_items (JSON text) to replay Codex response ids and phases.

-- +goose Up
ALTER TABLE messages ADD COLUMN "codex_message_items" TEXT;

-- +goose Down
ALTER TABLE messages DROP COLUMN "codex_message_items";
