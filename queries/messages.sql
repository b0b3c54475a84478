-- MessageInsert appends one message and returns its id. JSON columns
-- (tool_calls, reasoning_details, codex_*) hold JSON text; the FTS triggers
-- index the row.
-- name: MessageInsert :execlastid
INSERT INTO messages (
    session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp,
    token_count, finish_reason, reasoning, reasoning_content, reasoning_details,
    codex_reasoning_items, codex_message_items
) VALUES (
    @session_id, @role, @content, @tool_call_id, @tool_calls, @tool_name, @timestamp,
    @token_count, @finish_reason, @reasoning, @reasoning_content, @reasoning_details,
    @codex_reasoning_items, @codex_message_items
);

-- MessageListBySession returns a session's messages oldest first.
-- name: MessageListBySession :many
SELECT * FROM messages WHERE session_id = @session_id ORDER BY timestamp, id;

-- MessagePage is one keyset page of a session's messages, oldest first:
-- the messages after (after_timestamp, after_id) in (timestamp, id) order.
-- It reads the (session_id, timestamp) index from the page boundary, so every
-- page costs the same however deep into a long history it is.
-- name: MessagePage :many
SELECT * FROM messages
WHERE session_id = @session_id
  AND (timestamp > @after_timestamp OR (timestamp = @after_timestamp AND id > @after_id))
ORDER BY timestamp, id
LIMIT @limit;

-- MessageConversation reads what conversation replay needs of one session
-- or, with include_ancestors, of the session and every ancestor (at most 100
-- hops up), in one global (timestamp, id) order.
-- name: MessageConversation :many
WITH RECURSIVE lineage(id, depth) AS (
    SELECT CAST(@session_id AS TEXT), 0
    UNION ALL
    SELECT s.parent_session_id, l.depth + 1
    FROM lineage l JOIN sessions s ON s.id = l.id
    WHERE CAST(@include_ancestors AS INTEGER) AND s.parent_session_id IS NOT NULL AND l.depth < 100
)
SELECT role, content, tool_call_id, tool_calls, tool_name, reasoning, reasoning_content,
    reasoning_details, codex_reasoning_items, codex_message_items
FROM messages
WHERE session_id IN (SELECT id FROM lineage)
ORDER BY timestamp, id;

-- MessageCount counts every message row.
-- name: MessageCount :one
SELECT COUNT(*) FROM messages;

-- MessageCountBySession counts one session's message rows.
-- name: MessageCountBySession :one
SELECT COUNT(*) FROM messages WHERE session_id = @session_id;

-- MessageDeleteBySession deletes one session's messages (the FTS triggers
-- remove them from both indexes).
-- name: MessageDeleteBySession :execrows
DELETE FROM messages WHERE session_id = @session_id;

-- MessageImport writes one message of an imported session with every
-- column given, in the table's column order (so that its parameters are a
-- Message row). An id of 0 takes the next AUTOINCREMENT id (NULLIF; the
-- CAST gives the parameter its type); another id is kept, so an export
-- imported into a fresh file exports identically.
-- name: MessageImport :exec
INSERT INTO messages (
    id, session_id, role, content, tool_call_id, tool_calls, tool_name,
    effect_disposition, timestamp, token_count, finish_reason, reasoning,
    reasoning_content, reasoning_details, codex_reasoning_items, codex_message_items,
    platform_message_id, observed, active, compacted
) VALUES (
    NULLIF(CAST(@id AS INTEGER), 0), @session_id, @role, @content, @tool_call_id,
    @tool_calls, @tool_name, @effect_disposition, @timestamp, @token_count,
    @finish_reason, @reasoning, @reasoning_content, @reasoning_details,
    @codex_reasoning_items, @codex_message_items, @platform_message_id, @observed,
    @active, @compacted
);

-- MessageIDsTaken counts how many of a list of message ids (a JSON array)
-- are already in use.
-- name: MessageIDsTaken :one
SELECT COUNT(*) FROM messages WHERE id IN (SELECT value FROM json_each(@ids));
