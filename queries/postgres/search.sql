-- MessageContext is a search hit's context: the message before it in its
-- session, the hit itself, and the one after it, by (timestamp, id), each
-- with its role and the first 200 characters of its content (substr counts
-- code points on both engines). The neighbours are the rows the search
-- could find (active = 1 OR compacted = 1) unless include_inactive.
--
-- What differs from the SQLite twin: content there may be an INTEGER, REAL
-- or BLOB (typeof) and reads as the empty text, here it is text or NULL
-- (NULL reads as the empty text as there). raw, the whole text when it
-- holds a NUL on SQLite, is here the whole text of structured content,
-- which the engine stores with a leading U+0001 in place of upstream's
-- U+0000 (internal/backend's content encoding, which decodes raw back):
-- PostgreSQL text cannot hold U+0000 anywhere else. The subqueries need an
-- alias on PostgreSQL 15.
-- name: MessageContext :many
WITH target AS (
    SELECT session_id, timestamp, id FROM messages WHERE id = @id::bigint
)
SELECT role, content, raw FROM (
    SELECT m.role,
        CAST(COALESCE(substr(m.content, 1, 200), '') AS text) AS content,
        CAST(CASE WHEN left(m.content, 1) = chr(1) THEN convert_to(m.content, 'UTF8') END AS bytea) AS raw
    FROM messages m JOIN target t ON t.session_id = m.session_id
    WHERE m.timestamp <= t.timestamp AND (m.timestamp < t.timestamp OR m.id < t.id)
      AND (@include_inactive::bigint <> 0 OR m.active = 1 OR m.compacted = 1)
    ORDER BY m.timestamp DESC, m.id DESC
    LIMIT 1
) AS before_hit
UNION ALL
SELECT role, CAST(COALESCE(substr(content, 1, 200), '') AS text),
    CAST(CASE WHEN left(content, 1) = chr(1) THEN convert_to(content, 'UTF8') END AS bytea)
FROM messages WHERE id = @id::bigint
UNION ALL
SELECT role, content, raw FROM (
    SELECT m.role,
        CAST(COALESCE(substr(m.content, 1, 200), '') AS text) AS content,
        CAST(CASE WHEN left(m.content, 1) = chr(1) THEN convert_to(m.content, 'UTF8') END AS bytea) AS raw
    FROM messages m JOIN target t ON t.session_id = m.session_id
    WHERE m.timestamp >= t.timestamp AND (m.timestamp > t.timestamp OR m.id > t.id)
      AND (@include_inactive::bigint <> 0 OR m.active = 1 OR m.compacted = 1)
    ORDER BY m.timestamp ASC, m.id ASC
    LIMIT 1
) AS after_hit;

-- MessageSearchText is the text the search indexes for a message (content,
-- tool name and tool calls joined by spaces), for the snippet the store
-- makes of a long search hit.
-- name: MessageSearchText :one
SELECT CAST(COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') AS text) AS text
FROM messages WHERE id = @id;
