-- Schema v18 (hermes-agent 747386ecf): gateway presentation metadata on sessions.

-- +goose Up
ALTER TABLE sessions ADD COLUMN "display_name" TEXT;
ALTER TABLE sessions ADD COLUMN "origin_json" TEXT;
ALTER TABLE sessions ADD COLUMN "expiry_finalized" INTEGER DEFAULT 0;

-- +goose Down
ALTER TABLE sessions DROP COLUMN "expiry_finalized";
ALTER TABLE sessions DROP COLUMN "origin_json";
ALTER TABLE sessions DROP COLUMN "display_name";
