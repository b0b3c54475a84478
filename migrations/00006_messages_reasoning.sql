-- Schema v6: reasoning text and provider-specific reasoning payloads (JSON text).

-- +goose Up
ALTER TABLE messages ADD COLUMN "reasoning" TEXT;
ALTER TABLE messages ADD COLUMN "reasoning_details" TEXT;
ALTER TABLE messages ADD COLUMN "codex_reasoning_items" TEXT;

-- +goose Down
ALTER TABLE messages DROP COLUMN "codex_reasoning_items";
ALTER TABLE messages DROP COLUMN "reasoning_details";
ALTER TABLE messages DROP COLUMN "reasoning";
