-- The /handoff state machine on sessions (v15): NULL, then pending, running,
-- then completed or failed; a new request starts from NULL, completed or failed.

-- HandoffRequest marks a session pending for a platform unless a handoff is
-- in flight (pending or running); 0 rows means in flight or no session.
-- name: HandoffRequest :execrows
UPDATE sessions
SET handoff_state = 'pending', handoff_platform = @platform, handoff_error = NULL
WHERE id = @id AND (handoff_state IS NULL OR handoff_state = 'completed' OR handoff_state = 'failed');

-- HandoffClaim moves a pending handoff to running; 0 rows means it was not
-- pending (another watcher claimed it) or no session.
-- name: HandoffClaim :execrows
UPDATE sessions SET handoff_state = 'running'
WHERE id = @id AND handoff_state = 'pending';

-- HandoffComplete marks a handoff completed, from any state, as upstream.
-- name: HandoffComplete :execrows
UPDATE sessions SET handoff_state = 'completed', handoff_error = NULL WHERE id = @id;

-- HandoffFail marks a handoff failed with its reason, from any state.
-- name: HandoffFail :execrows
UPDATE sessions SET handoff_state = 'failed', handoff_error = @error WHERE id = @id;

-- HandoffGet reads a session's handoff columns.
-- name: HandoffGet :one
SELECT handoff_state, handoff_platform, handoff_error FROM sessions WHERE id = @id;

-- HandoffListPending lists the pending handoffs, oldest first (ties by id),
-- served by idx_sessions_handoff_state.
-- PostgreSQL: id sorts COLLATE "C", the byte order SQLite's BINARY
-- collation gives, whatever the database's collation is.
-- name: HandoffListPending :many
SELECT * FROM sessions WHERE handoff_state = 'pending'
ORDER BY started_at ASC, id COLLATE "C" ASC;
