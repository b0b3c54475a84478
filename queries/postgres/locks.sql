-- Compression locks (compression_locks, v14) and the per-session
-- compression state columns (v19, v21). Every time is REAL epoch seconds
-- from the store's clock. A lock is expired when expires_at < now, so a lock
-- whose expires_at equals now is still held (upstream's boundary).

-- CompressionLockDeleteExpired reclaims a crashed holder's lock: the first
-- statement of an acquire, in the same write transaction.
-- name: CompressionLockDeleteExpired :execrows
DELETE FROM compression_locks
WHERE session_id = @session_id AND expires_at < @now;

-- CompressionLockInsert takes the lock unless a row exists: OR IGNORE keeps
-- the current holder's row (and its expires_at: a holder that acquires again
-- does not extend its lease). The caller reads the holder back to learn who
-- holds it.
-- PostgreSQL: ON CONFLICT DO NOTHING is what OR IGNORE does to the primary
-- key, and OR IGNORE also skips a row with a NULL in a NOT NULL column
-- (0 rows, no error), which the WHERE does for the two times that may be
-- NULL (session_id and holder are Go strings). The casts there give
-- PostgreSQL their types, which INSERT ... SELECT does not infer.
-- name: CompressionLockInsert :execrows
INSERT INTO compression_locks (session_id, holder, acquired_at, expires_at)
SELECT @session_id, @holder, @acquired_at, @expires_at
WHERE @acquired_at::float8 IS NOT NULL AND @expires_at::float8 IS NOT NULL
ON CONFLICT DO NOTHING;

-- CompressionLockOwner is the holder of a session's lock row, expired or
-- not: an acquire reads it right after the insert.
-- name: CompressionLockOwner :one
SELECT holder FROM compression_locks WHERE session_id = @session_id;

-- CompressionLockRefresh extends the lease only for the holder, and only
-- while the lock has not expired: an expired lock may already have been
-- reclaimed in spirit, and must stay reclaimable.
-- name: CompressionLockRefresh :execrows
UPDATE compression_locks SET expires_at = @expires_at
WHERE session_id = @session_id AND holder = @holder AND expires_at >= @now;

-- CompressionLockRelease removes the lock only for its holder: a
-- late-returning compressor must not clobber a newer holder's lock.
-- name: CompressionLockRelease :execrows
DELETE FROM compression_locks WHERE session_id = @session_id AND holder = @holder;

-- CompressionLockHolder is the holder of a lock that has not expired. It
-- hides an expired row without deleting it (only an acquire reclaims).
-- name: CompressionLockHolder :one
SELECT holder FROM compression_locks
WHERE session_id = @session_id AND expires_at >= @now;

-- CompressionCooldownSet records (or, with NULLs, clears) a session's
-- compression-failure cooldown.
-- name: CompressionCooldownSet :execrows
UPDATE sessions SET compression_failure_cooldown_until = @cooldown_until,
    compression_failure_error = @error
WHERE id = @id;

-- CompressionCooldownGet reads a session's cooldown columns; the store
-- decides in Go whether the cooldown is still running (until > now).
-- name: CompressionCooldownGet :one
SELECT compression_failure_cooldown_until, compression_failure_error
FROM sessions WHERE id = @id;

-- CompressionStreakGet reads a session's deterministic-fallback streak.
-- name: CompressionStreakGet :one
SELECT compression_fallback_streak FROM sessions WHERE id = @id;

-- CompressionStreakSet stores a session's deterministic-fallback streak
-- (the store clamps it at 0 first).
-- name: CompressionStreakSet :execrows
UPDATE sessions SET compression_fallback_streak = @streak WHERE id = @id;
