-- Schema v10 (hermes-agent 1fa76607c): a second, trigram-tokenized FTS5 index over
-- messages.content for CJK and substring search, external-content like v1's, with
-- triggers of the same shape, and a backfill of the rows already present.
--
-- The original backfilled with INSERT ... SELECT id, content FROM messages WHERE
-- content IS NOT NULL, once, when the table was missing. 'rebuild' reads the same
-- rows from the content table and is safe to repeat, so an existing index is never
-- doubled.

-- +goose Up
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(
    content,
    content=messages,
    content_rowid=id,
    tokenize='trigram'
);

-- +goose StatementBegin
CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, new.content);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content) VALUES('delete', old.id, old.content);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content) VALUES('delete', old.id, old.content);
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, new.content);
END;
-- +goose StatementEnd

INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('rebuild');

-- +goose Down
DROP TRIGGER IF EXISTS messages_fts_trigram_update;
DROP TRIGGER IF EXISTS messages_fts_trigram_delete;
DROP TRIGGER IF EXISTS messages_fts_trigram_insert;
DROP TABLE IF EXISTS messages_fts_trigram;
