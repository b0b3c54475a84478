-- Schema v4: non-NULL titles are unique (BINARY collation, so case-sensitive); any
-- number of sessions may be untitled. A legacy file that already holds two sessions
-- with the same title fails here with a UNIQUE constraint error, as the original
-- does; rename one of them and migrate again.

-- +goose Up
CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;

-- +goose Down
DROP INDEX IF EXISTS idx_sessions_title_unique;
