-- PostgreSQL's own message bookkeeping, with no SQLite twin.

-- EngineAdvanceMessageID moves messages' id sequence past id, an id an
-- import wrote explicitly (SQLite's AUTOINCREMENT counter follows every
-- id written, the identity column's sequence only the ones it handed out),
-- so that the next AppendMessage takes the next free id. It never moves
-- the sequence back. The import holds every other write off
-- (backend.Locks.LockAll), so no append takes an id meanwhile.
-- name: EngineAdvanceMessageID :exec
SELECT setval(pg_get_serial_sequence('messages', 'id'),
    GREATEST(CAST(@id AS bigint), (SELECT COALESCE(MAX(m.id), 1) FROM messages m)));

-- EngineSearchIndexClear empties messages_search, the first step of
-- rebuilding it (RebuildSearchIndex).
-- name: EngineSearchIndexClear :exec
DELETE FROM messages_search;

-- EngineMessagesToIndex reads the next batch of messages after id after,
-- in id order, with the columns their search row is made of, for
-- RebuildSearchIndex (batches: one connection carries one result at a
-- time, and the rows are written between batches).
-- name: EngineMessagesToIndex :many
SELECT id, content, tool_name, tool_calls FROM messages
WHERE id > @after::bigint ORDER BY id LIMIT @batch::bigint;
