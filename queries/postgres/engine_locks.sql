-- PostgreSQL's own locks, with no SQLite twin: SQLite's single writer
-- serialises every write transaction, PostgreSQL only the rows two
-- transactions both write. The store asks for these through
-- backend.Locks (a no-op on SQLite), and every write transaction begins
-- with the shared lock of key 7235102001 (store/postgres.go), so that the
-- exclusive one waits for every write in flight and holds off new ones.

-- EngineLockSession locks one session row until the transaction ends, so
-- that the writes of one session's messages and counters (append, replace,
-- clear, rewind, archive) run one after another, as they do on SQLite. A
-- missing session locks nothing; the write's own statements report it.
-- name: EngineLockSession :many
SELECT id FROM sessions WHERE id = @id FOR UPDATE;

-- EngineLockTitles serialises title allocation (set, next in lineage), so
-- that two writers never both see a title free: transaction-scoped
-- advisory lock 7235102002.
-- name: EngineLockTitles :exec
SELECT pg_advisory_xact_lock(7235102002);

-- EngineLockAll waits for every write transaction in flight and holds off
-- new ones until this one ends (the exclusive form of every write's shared
-- lock 7235102001): prune, import and deletes of many sessions, which read
-- a set of sessions and then write it.
-- name: EngineLockAll :exec
SELECT pg_advisory_xact_lock(7235102001);
