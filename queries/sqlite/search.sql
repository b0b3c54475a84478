-- MessageContext is a search hit's context: the message before it in its
-- session, the hit itself, and the one after it, by (timestamp, id), each
-- with its role and the first 200 characters of its content (SQLite's substr
-- counts characters, as Python's [:200] counts code points). Truncating in
-- SQL keeps a huge message out of memory.
--
-- The neighbours are the rows the search itself could find: live and
-- compaction-archived rows (active = 1 OR compacted = 1) unless
-- include_inactive. Upstream takes any row, so a rewound message shows up
-- beside a hit (upstream-v21.md, defect 1 of section 8). The hit itself is always there.
--
-- Content that is not text reads as the empty text (upstream previews an int,
-- a float or bytes so). Text holding a NUL (upstream's "\x00json:" multimodal
-- content, or a NUL anywhere) comes whole as raw instead: SQLite's substr
-- stops at a NUL, Python's slicing does not, and the store decodes the
-- multimodal parts to their text (search_context.go).
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
SELECT role, content, raw FROM (
    SELECT m.role,
        CAST(CASE WHEN typeof(m.content) = 'text' THEN substr(m.content, 1, 200) ELSE '' END AS TEXT) AS content,
        CAST(CASE WHEN typeof(m.content) = 'text' AND instr(CAST(m.content AS BLOB), X'00') > 0 THEN CAST(m.content AS BLOB) END AS BLOB) AS raw
    FROM messages m JOIN target t ON t.session_id = m.session_id
    WHERE m.timestamp <= t.timestamp AND (m.timestamp < t.timestamp OR m.id < t.id)
      AND (CAST(@include_inactive AS INTEGER) OR m.active = 1 OR m.compacted = 1)
    ORDER BY m.timestamp DESC, m.id DESC
    LIMIT 1
)
UNION ALL
SELECT role,
    CAST(CASE WHEN typeof(content) = 'text' THEN substr(content, 1, 200) ELSE '' END AS TEXT),
    CAST(CASE WHEN typeof(content) = 'text' AND instr(CAST(content AS BLOB), X'00') > 0 THEN CAST(content AS BLOB) END AS BLOB)
FROM messages WHERE id = CAST(@id AS INTEGER)
UNION ALL
SELECT role, content, raw FROM (
    SELECT m.role,
        CAST(CASE WHEN typeof(m.content) = 'text' THEN substr(m.content, 1, 200) ELSE '' END AS TEXT) AS content,
        CAST(CASE WHEN typeof(m.content) = 'text' AND instr(CAST(m.content AS BLOB), X'00') > 0 THEN CAST(m.content AS BLOB) END AS BLOB) AS raw
    FROM messages m JOIN target t ON t.session_id = m.session_id
    WHERE m.timestamp >= t.timestamp AND (m.timestamp > t.timestamp OR m.id > t.id)
      AND (CAST(@include_inactive AS INTEGER) OR m.active = 1 OR m.compacted = 1)
    ORDER BY m.timestamp ASC, m.id ASC
    LIMIT 1
);

-- MessageSearchText is the text the FTS triggers index for a message
-- (content, tool name and tool calls joined by spaces), for the snippet the
-- store makes of a long search hit.
-- name: MessageSearchText :one
SELECT CAST(COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') AS TEXT) AS text
FROM messages WHERE id = @id;
