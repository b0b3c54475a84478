-- Schema v7: reasoning_content (hermes-agent a7d78d3bf). This version was inserted
-- after the fact and the previous v7 (api_call_count) renumbered to v8, so real files
-- exist that say 7 yet already hold api_call_count and lack reasoning_content. The
-- migrator records an add-column migration whose columns already exist as applied
-- (adding only the missing ones), and the reconcile adds any column still missing;
-- see migrations/adopt.go.

-- +goose Up
ALTER TABLE messages ADD COLUMN "reasoning_content" TEXT;

-- +goose Down
ALTER TABLE messages DROP COLUMN "reasoning_content";
