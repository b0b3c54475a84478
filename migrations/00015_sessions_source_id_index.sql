-- Schema v15 (hermes-agent ed81cfe3d): an index that bounds a cron job's run
-- history to an id range within source = 'cron'.

-- +goose Up
CREATE INDEX IF NOT EXISTS idx_sessions_source_id ON sessions(source, id);

-- +goose Down
DROP INDEX IF EXISTS idx_sessions_source_id;
