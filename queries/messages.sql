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
