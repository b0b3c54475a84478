-- Schema v2: the finish reason the provider reported for each message.

-- +goose Up
ALTER TABLE messages ADD COLUMN finish_reason TEXT;

-- +goose Down
ALTER TABLE messages DROP COLUMN finish_reason;
