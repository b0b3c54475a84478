-- Schema v13 (hermes-agent 4a91e3649): observed group-chat context, stored but not
-- addressed to the agent (0/1, nullable as upstream declares it).

-- +goose Up
ALTER TABLE messages ADD COLUMN "observed" INTEGER DEFAULT 0;

-- +goose Down
ALTER TABLE messages DROP COLUMN "observed";
