-- The PostgreSQL twins of queries/sqlite/messages.sql: the same names,
-- kinds (but for MessageInsert), parameters and rows. What differs from the
-- SQLite text, everywhere below:
--   CAST(@x AS INTEGER) used as a boolean is @x::bigint <> 0 (PostgreSQL has
--   no integer truth value), keeping the int64 parameter;
--   json_each(@x) is jsonb_array_elements_text(CAST(CAST(@x AS unknown)
--   AS text)::jsonb). The cast to unknown is for sqlc alone: sqlc has no Go
--   type for unknown, so the parameter stays interface{} as db has it (the
--   store binds the JSON text), while PostgreSQL resolves the parameter to
--   text. ExportCount's nullable source uses the same casts for that reason;
--   LIMIT -1 (SQLite: no limit) is LIMIT NULL (PostgreSQL rejects a negative
--   LIMIT or OFFSET), a negative OFFSET counts as 0 as on SQLite.

-- MessageInsert appends one message and returns its id (see the SQLite
-- twin for why every column is named). :one with RETURNING id, where SQLite
-- has :execlastid: pgx has no last insert id, and the method keeps the
-- same signature (ctx, db, params) (int64, error).
-- name: MessageInsert :one
INSERT INTO messages (
    session_id, role, content, tool_call_id, tool_calls, tool_name,
    effect_disposition, timestamp, token_count, finish_reason, reasoning,
    reasoning_content, reasoning_details, codex_reasoning_items,
    codex_message_items, platform_message_id, observed, active, compacted
) VALUES (
    @session_id, @role, @content, @tool_call_id, @tool_calls, @tool_name,
    @effect_disposition, @timestamp, @token_count, @finish_reason, @reasoning,
    @reasoning_content, @reasoning_details, @codex_reasoning_items,
    @codex_message_items, @platform_message_id, @observed, 1, 0
)
RETURNING id;

-- MessageList returns a session's messages in id order, the live ones only
-- unless include_inactive, skipping offset rows and returning at most limit
-- (-1: all). The SQLite twin collects the ids through a covering index
-- first, a SQLite planner detail: PostgreSQL plans the plain form well.
-- OFFSET is written before LIMIT so that the parameters come in the SQLite
-- twin's order.
-- name: MessageList :many
SELECT * FROM messages
WHERE session_id = @session_id
  AND (@include_inactive::bigint <> 0 OR active = 1)
ORDER BY id
OFFSET GREATEST(sqlc.arg('offset')::bigint, 0)
LIMIT CASE WHEN sqlc.arg('limit')::bigint < 0 THEN NULL ELSE sqlc.arg('limit')::bigint END;

-- MessagePage is one keyset page of a session's live messages in id order:
-- the ones after after_id.
-- name: MessagePage :many
SELECT * FROM messages
WHERE session_id = @session_id AND active = 1 AND id > @after_id
ORDER BY id
LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1);

-- MessagePageAfter is MessagePage for the pages after the first. The SQLite
-- twin writes +session_id to keep SQLite off the session index, PostgreSQL
-- has no unary plus on text and picks its plan by cost: the same query.
-- name: MessagePageAfter :many
SELECT * FROM messages
WHERE id > @after_id AND session_id = @session_id AND active = 1
ORDER BY id
LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1);

-- MessageConversation reads what conversation replay needs of one session
-- or, with include_ancestors, of the session and its ancestors (100
-- sessions at most), in one global id order, the live messages only unless
-- include_inactive. The opts row comes first so that the parameters come in
-- the SQLite twin's order (include_inactive, session_id, include_ancestors).
-- name: MessageConversation :many
WITH RECURSIVE opts AS (
    SELECT @include_inactive::bigint <> 0 AS include_inactive
), lineage(id, depth) AS (
    SELECT CAST(@session_id AS text) COLLATE "C", 0
    UNION ALL
    SELECT s.parent_session_id, l.depth + 1
    FROM lineage l JOIN sessions s ON s.id = l.id
    WHERE @include_ancestors::bigint <> 0 AND s.parent_session_id IS NOT NULL AND l.depth < 99
)
SELECT m.role, m.content, m.tool_call_id, m.tool_calls, m.tool_name, m.effect_disposition,
    m.finish_reason, m.reasoning, m.reasoning_content, m.reasoning_details,
    m.codex_reasoning_items, m.codex_message_items, m.platform_message_id, m.observed, m.timestamp,
    COALESCE((SELECT c.message_count FROM sessions c WHERE c.id = @session_id), 0)::bigint AS message_count_hint
FROM messages m, opts
WHERE m.session_id IN (SELECT id FROM lineage)
  AND (opts.include_inactive OR m.active = 1)
ORDER BY m.id;

-- MessageCount counts every message row.
-- name: MessageCount :one
SELECT COUNT(*) FROM messages;

-- MessageCountBySession counts one session's message rows.
-- name: MessageCountBySession :one
SELECT COUNT(*) FROM messages WHERE session_id = @session_id;

-- MessageDeleteBySession deletes one session's messages (the cascade
-- removes their messages_search rows).
-- name: MessageDeleteBySession :execrows
DELETE FROM messages WHERE session_id = @session_id;

-- MessageDeleteActive deletes one session's live messages only, keeping
-- rewound and compaction-archived rows.
-- name: MessageDeleteActive :execrows
DELETE FROM messages WHERE session_id = @session_id AND active = 1;

-- MessageImport writes one message of an imported session with every
-- column given. An id of 0 takes the next identity value: the SQLite twin
-- binds NULL (NULLIF) and AUTOINCREMENT fills it, but an explicit NULL in a
-- PostgreSQL identity column is a NOT NULL violation, so the default is
-- asked for by name (nextval of the column's sequence).
-- PostgreSQL: it returns the id it wrote (the SQLite twin returns
-- nothing), which the engine indexes the message under (internal/backend's
-- hand-written MessageImport).
-- name: MessageImport :one
INSERT INTO messages (
    id, session_id, role, content, tool_call_id, tool_calls, tool_name,
    effect_disposition, timestamp, token_count, finish_reason, reasoning,
    reasoning_content, reasoning_details, codex_reasoning_items, codex_message_items,
    platform_message_id, observed, active, compacted
) VALUES (
    COALESCE(NULLIF(@id::bigint, 0), nextval(pg_get_serial_sequence('messages', 'id'))),
    @session_id, @role, @content, @tool_call_id,
    @tool_calls, @tool_name, @effect_disposition, @timestamp, @token_count,
    @finish_reason, @reasoning, @reasoning_content, @reasoning_details,
    @codex_reasoning_items, @codex_message_items, @platform_message_id, @observed,
    @active, @compacted
)
RETURNING id;

-- ImportClosesCycle reports whether making an imported session child a
-- child of parent would close a cycle. UNION stops the walk on a cycle.
-- name: ImportClosesCycle :one
WITH RECURSIVE up(id) AS (
    SELECT CAST(@parent AS text) COLLATE "C"
    UNION
    SELECT s.parent_session_id FROM up JOIN sessions s ON s.id = up.id
    WHERE s.parent_session_id IS NOT NULL
)
SELECT EXISTS (SELECT 1 FROM up WHERE id = CAST(@child AS text));

-- MessageIDsTaken counts how many of a list of message ids (a JSON array)
-- are already in use.
-- name: MessageIDsTaken :one
SELECT COUNT(*) FROM messages
WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text(CAST(CAST(sqlc.arg('ids') AS unknown) AS text)::jsonb));

-- MessageInSession reads one message of one session (any active state).
-- name: MessageInSession :one
SELECT * FROM messages WHERE id = @id AND session_id = @session_id;

-- MessageRewindFrom takes back a session's live messages from id on.
-- name: MessageRewindFrom :execrows
UPDATE messages SET active = 0
WHERE session_id = @session_id AND id >= @id AND active = 1;

-- SessionBumpRewindCount counts one more rewind of a session.
-- name: SessionBumpRewindCount :execrows
UPDATE sessions SET rewind_count = COALESCE(rewind_count, 0) + 1 WHERE id = @id;

-- MessageActiveHead is the id of a session's newest live message.
-- name: MessageActiveHead :one
SELECT id FROM messages WHERE session_id = @session_id AND active = 1
ORDER BY id DESC LIMIT 1;

-- MessageRestoreFrom makes a session's inactive messages from id on live
-- again (compacted is left as it is).
-- name: MessageRestoreFrom :execrows
UPDATE messages SET active = 1
WHERE session_id = @session_id AND id >= @id AND active = 0;

-- MessageRecentUser reads a session's newest user messages, newest first,
-- the live ones only unless include_inactive, at most limit (-1: all).
-- name: MessageRecentUser :many
SELECT id, timestamp, content FROM messages
WHERE session_id = @session_id AND role = 'user'
  AND (@include_inactive::bigint <> 0 OR active = 1)
ORDER BY id DESC
LIMIT CASE WHEN sqlc.arg('limit')::bigint < 0 THEN NULL ELSE sqlc.arg('limit')::bigint END;

-- MessageArchiveActive summarises a session's live messages away: hidden
-- from replays (active = 0) but still found by search (compacted = 1).
-- name: MessageArchiveActive :execrows
UPDATE messages SET active = 0, compacted = 1
WHERE session_id = @session_id AND active = 1;

-- MessageHasInactive reports whether a session has a rewound or
-- compaction-archived message.
-- name: MessageHasInactive :one
SELECT EXISTS (SELECT 1 FROM messages WHERE session_id = @session_id AND active = 0);

-- MessageHasPlatformID reports whether a session has a message with a
-- platform message id (any active state).
-- name: MessageHasPlatformID :one
SELECT EXISTS (
    SELECT 1 FROM messages
    WHERE session_id = @session_id AND platform_message_id = @platform_message_id
);

-- MessageUpTo reads a session's messages up to and including id, newest
-- first, at most limit.
-- name: MessageUpTo :many
SELECT * FROM messages WHERE session_id = @session_id AND id <= @id
ORDER BY id DESC LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1);

-- MessageAfter reads a session's messages after id, oldest first, at most
-- limit.
-- name: MessageAfter :many
SELECT * FROM messages WHERE session_id = @session_id AND id > @id
ORDER BY id LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1);

-- MessageBookendStart reads the first messages of a session before id
-- whose content has a length, of the roles in the JSON array roles unless
-- all_roles, oldest first, at most limit. On SQLite length() stops at a
-- NUL, so content starting with one (structured content) never qualifies.
-- PostgreSQL text holds no NUL: the engine stores that leading U+0000 as
-- U+0001, and a content really starting with U+0001 with it doubled
-- (internal/backend's content encoding), so a single leading U+0001 is
-- what SQLite's leading NUL is.
-- name: MessageBookendStart :many
SELECT * FROM messages
WHERE session_id = @session_id AND id < @id
  AND (@all_roles::bigint <> 0 OR role IN (SELECT value FROM jsonb_array_elements_text(CAST(CAST(sqlc.arg('roles') AS unknown) AS text)::jsonb)))
  AND length(content) > 0 AND (left(content, 1) <> chr(1) OR left(content, 2) = chr(1) || chr(1))
ORDER BY id LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1);

-- MessageBookendEnd is MessageBookendStart at the session's end: the last
-- messages after id, newest first.
-- name: MessageBookendEnd :many
SELECT * FROM messages
WHERE session_id = @session_id AND id > @id
  AND (@all_roles::bigint <> 0 OR role IN (SELECT value FROM jsonb_array_elements_text(CAST(CAST(sqlc.arg('roles') AS unknown) AS text)::jsonb)))
  AND length(content) > 0 AND (left(content, 1) <> chr(1) OR left(content, 2) = chr(1) || chr(1))
ORDER BY id DESC LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1);

-- ExportCount counts the sessions an export of every session (source
-- NULL) or of one source writes.
-- name: ExportCount :one
SELECT COUNT(*) FROM sessions
WHERE CAST(CAST(sqlc.narg('source') AS unknown) AS text) IS NULL
   OR source = CAST(CAST(sqlc.narg('source') AS unknown) AS text);
