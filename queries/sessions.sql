-- SessionGet returns one session by exact id. Timestamps are REAL epoch
-- seconds; counters are pointers because a column added by ALTER TABLE in a
-- legacy file may hold NULL.
-- name: SessionGet :one
SELECT * FROM sessions WHERE id = @id;

-- SessionCreate inserts a session; OR IGNORE makes the first row for an id
-- win (0 rows affected: it existed). A parent_session_id naming no session
-- still fails: OR IGNORE does not cover foreign keys.
-- name: SessionCreate :execrows
INSERT OR IGNORE INTO sessions (
    id, source, user_id, model, model_config, system_prompt, parent_session_id, started_at
) VALUES (
    @id, @source, @user_id, @model, @model_config, @system_prompt, @parent_session_id, @started_at
);

-- SessionEnsure creates a minimal row when none exists, never overwriting.
-- name: SessionEnsure :execrows
INSERT OR IGNORE INTO sessions (id, source, model, started_at)
VALUES (@id, @source, @model, @started_at);

-- SessionEnd ends a session once: the first end reason wins.
-- name: SessionEnd :execrows
UPDATE sessions SET ended_at = @ended_at, end_reason = @end_reason
WHERE id = @id AND ended_at IS NULL;

-- SessionReopen clears a session's end.
-- name: SessionReopen :execrows
UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = @id;

-- SessionUpdateSystemPrompt replaces a session's system prompt.
-- name: SessionUpdateSystemPrompt :execrows
UPDATE sessions SET system_prompt = @system_prompt WHERE id = @id;

-- SessionCount counts every session.
-- name: SessionCount :one
SELECT COUNT(*) FROM sessions;

-- SessionCountBySource counts the sessions of one source (platform).
-- name: SessionCountBySource :one
SELECT COUNT(*) FROM sessions WHERE source = @source;

-- SessionAncestors walks parent_session_id from a session to its root:
-- depth 0 is the session itself, then its parent, and so on. The walk stops
-- after 100 hops (the original's bound for lineage walks), so a cycle written
-- by hand cannot loop forever.
-- name: SessionAncestors :many
WITH RECURSIVE lineage(id, depth) AS (
    SELECT s.id, 0 FROM sessions s WHERE s.id = @id
    UNION ALL
    SELECT s.parent_session_id, l.depth + 1
    FROM lineage l JOIN sessions s ON s.id = l.id
    WHERE s.parent_session_id IS NOT NULL AND l.depth < 100
)
SELECT s.id, s.title, s.started_at, s.parent_session_id, CAST(l.depth AS INTEGER) AS depth
FROM lineage l JOIN sessions s ON s.id = l.id
ORDER BY l.depth;

-- SessionDescendants returns a session and every session below it:
-- depth 0 is the session itself, then its children (oldest first), their
-- children, and so on, at most 100 levels down.
-- name: SessionDescendants :many
WITH RECURSIVE descendants(id, depth) AS (
    SELECT s.id, 0 FROM sessions s WHERE s.id = @id
    UNION ALL
    SELECT s.id, d.depth + 1
    FROM descendants d JOIN sessions s ON s.parent_session_id = d.id
    WHERE d.depth < 100
)
SELECT s.id, s.title, s.started_at, s.parent_session_id, CAST(d.depth AS INTEGER) AS depth
FROM descendants d JOIN sessions s ON s.id = d.id
ORDER BY d.depth, s.started_at, s.id;

-- SessionListRecent is the recent-sessions query: newest first, each with the
-- first 63 characters of its first user message and the time of its last
-- message (its start when it has none).
-- name: SessionListRecent :many
SELECT s.*,
    CAST(COALESCE(
        (SELECT SUBSTR(m.content, 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS TEXT) AS preview,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS REAL) AS last_active
FROM sessions s
ORDER BY s.started_at DESC, s.id DESC
LIMIT @limit;

-- SessionTokenStatsByModel totals tokens and estimated cost per model,
-- costliest first. TOTAL() is 0.0 where every cost is NULL.
-- name: SessionTokenStatsByModel :many
SELECT CAST(model AS TEXT) AS model,
    COUNT(*) AS session_count,
    CAST(COALESCE(SUM(input_tokens), 0) AS INTEGER) AS total_input,
    CAST(COALESCE(SUM(output_tokens), 0) AS INTEGER) AS total_output,
    CAST(TOTAL(estimated_cost_usd) AS REAL) AS total_cost
FROM sessions
WHERE model IS NOT NULL
GROUP BY model
ORDER BY total_cost DESC, model;

-- SessionTokenStatsBySource is the same totals per source (platform).
-- name: SessionTokenStatsBySource :many
SELECT source,
    COUNT(*) AS session_count,
    CAST(COALESCE(SUM(input_tokens), 0) AS INTEGER) AS total_input,
    CAST(COALESCE(SUM(output_tokens), 0) AS INTEGER) AS total_output,
    CAST(TOTAL(estimated_cost_usd) AS REAL) AS total_cost
FROM sessions
GROUP BY source
ORDER BY total_cost DESC, source;

-- SessionTopByTokens lists the sessions with the most input+output tokens.
-- name: SessionTopByTokens :many
SELECT id, title, model,
    CAST(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) AS INTEGER) AS total_tokens,
    estimated_cost_usd
FROM sessions
ORDER BY total_tokens DESC, id
LIMIT @limit;
