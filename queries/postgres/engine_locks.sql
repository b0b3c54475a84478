-- PostgreSQL's own locks, with no SQLite twin: SQLite's single writer
-- serialises every write transaction, PostgreSQL only the rows two
-- transactions both write. The store asks for these through
-- backend.Locks (a no-op on SQLite). Besides them, every write transaction
-- begins with the shared lock of key 7235102001 and a write of many
-- sessions (prune, import, deletes) with its exclusive form, in the BEGIN's
-- round trip (store/postgres.go, store/tx.go writeAll).

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
