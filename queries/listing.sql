-- SessionListRich is list_sessions_rich before its compression projection:
-- sessions newest first, each with the raw preview (the first user message's
-- first 63 characters, newlines as spaces; Go strips and cuts it to 60) and
-- last_active (newest message, else the start).
--
-- Unless include_children is set, only roots and /branch children are
-- listed: a child whose parent ended with 'branched' before it started.
-- Subagent and compression children stay hidden. source NULL means every
-- source; exclude_sources is a JSON array of sources to leave out (NULL: none
-- left out). Ties on started_at are broken by id so pages are stable.
-- name: SessionListRich :many
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS TEXT) AS preview_raw,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS REAL) AS last_active
FROM sessions s
WHERE (CAST(@include_children AS INTEGER)
       OR s.parent_session_id IS NULL
       OR EXISTS (SELECT 1 FROM sessions p
                  WHERE p.id = s.parent_session_id AND p.end_reason = 'branched'
                    AND s.started_at >= p.ended_at))
  AND (CAST(sqlc.narg(source) AS TEXT) IS NULL OR s.source = sqlc.narg(source))
  AND (CAST(sqlc.narg(exclude_sources) AS TEXT) IS NULL
       OR s.source NOT IN (SELECT value FROM json_each(sqlc.narg(exclude_sources))))
ORDER BY s.started_at DESC, s.id DESC
LIMIT @limit OFFSET @offset;

-- SessionRichRow is one session shaped as SessionListRich shapes a row; the
-- projection reads a compression tip through it. It repeats the two
-- subqueries rather than adding an optional id filter to SessionListRich:
-- "(? IS NULL OR s.id = ?)" would keep SQLite from using the primary key.
-- name: SessionRichRow :one
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS TEXT) AS preview_raw,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS REAL) AS last_active
FROM sessions s
WHERE s.id = @id;
