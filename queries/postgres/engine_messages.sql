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
