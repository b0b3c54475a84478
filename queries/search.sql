-- MessageContext is a search hit's context: the message before it in its
-- session, the hit itself, and the one after it, by (timestamp, id), each
-- with its role and the first 200 characters of its content (SQLite's substr
-- counts characters, as Python's [:200] counts code points). Truncating in
-- SQL keeps a huge message out of memory.
--
-- The neighbour conditions say the original's "(timestamp, id) before /
-- after the hit" with a plain range on timestamp in front, so SQLite walks
-- the (session_id, timestamp) index from the hit outwards and stops at the
-- first row, in index order (which ends in rowid = id), with no sort. The
-- original's OR form made it read and sort the whole session on each side.
-- name: MessageContext :many
WITH target AS (
    SELECT session_id, timestamp, id FROM messages WHERE id = CAST(@id AS INTEGER)
)
SELECT role, content FROM (
    SELECT m.role, CAST(COALESCE(substr(m.content, 1, 200), '') AS TEXT) AS content
    FROM messages m JOIN target t ON t.session_id = m.session_id
    WHERE m.timestamp <= t.timestamp AND (m.timestamp < t.timestamp OR m.id < t.id)
    ORDER BY m.timestamp DESC, m.id DESC
    LIMIT 1
)
UNION ALL
SELECT role, CAST(COALESCE(substr(content, 1, 200), '') AS TEXT) FROM messages WHERE id = CAST(@id AS INTEGER)
UNION ALL
SELECT role, content FROM (
    SELECT m.role, CAST(COALESCE(substr(m.content, 1, 200), '') AS TEXT) AS content
    FROM messages m JOIN target t ON t.session_id = m.session_id
    WHERE m.timestamp >= t.timestamp AND (m.timestamp > t.timestamp OR m.id > t.id)
    ORDER BY m.timestamp ASC, m.id ASC
    LIMIT 1
);

-- MessageSearchText is the text the FTS triggers index for a message
-- (content, tool name and tool calls joined by spaces), for the snippet the
-- store makes of a long search hit.
-- name: MessageSearchText :one
SELECT CAST(COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') AS TEXT) AS text
FROM messages WHERE id = @id;
