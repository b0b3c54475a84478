-- MessageInsert appends one message and returns its id. It names every
-- column but id: active and compacted are written as 1 and 0 and observed
-- is bound 0 or 1 rather than left to their DEFAULTs, because a file an
-- older Hermes reconciled can carry active without a default (upstream
-- #51646), and a row with active NULL is hidden from every replay. JSON
-- columns (tool_calls, reasoning_details, codex_*) hold JSON text; the FTS
-- triggers index the row.
-- name: MessageInsert :execlastid
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
);

-- MessageList returns a session's messages in insertion order (id, not
-- timestamp: a clock that steps back must not reorder a tool call and its
-- reply), the live ones only unless include_inactive, skipping offset rows
-- and returning at most limit (-1: all), as upstream's get_messages.
--
-- Upstream's text (WHERE session_id = ... ORDER BY id) reads the rows
-- through idx_messages_session, in timestamp order, and sorts them by id:
-- SQLite builds each row's result columns before sorting, so every
-- message's content, tool calls and reasoning are copied into the sorter.
-- Here the subquery collects the matching ids from
-- idx_messages_session_active alone (a covering index: session_id,
-- active, then the rowid), SQLite keeps them in a sorted list, and the
-- outer query walks that list in id order, reading each row once by rowid,
-- with no sort, and stopping at the limit. Same rows, same order.
-- name: MessageList :many
SELECT * FROM messages
WHERE id IN (SELECT m.id FROM messages m
             WHERE m.session_id = @session_id
               AND (CAST(@include_inactive AS INTEGER) OR m.active = 1))
ORDER BY id
LIMIT @limit OFFSET @offset;

-- MessagePage is one keyset page of a session's live messages in id order:
-- the ones after after_id. SQLite reads it through the session's index
-- entries and sorts them by id: cheap for the first page, and for a
-- session of fewer rows than a page the only one (see MessagePageAfter).
-- name: MessagePage :many
SELECT * FROM messages
WHERE session_id = @session_id AND active = 1 AND id > @after_id
ORDER BY id
LIMIT @limit;

-- MessagePageAfter is MessagePage for the pages after the first: it walks
-- the table in id order from after_id (the unary + keeps SQLite off the
-- session index, which would sort every remaining row of the session for
-- each page: quadratic in a 300,000-message session), so a page costs the
-- rows between its boundaries, whatever the session's size.
-- name: MessagePageAfter :many
SELECT * FROM messages
WHERE id > @after_id AND +session_id = @session_id AND active = 1
ORDER BY id
LIMIT @limit;

-- MessageConversation reads what conversation replay needs of one session
-- or, with include_ancestors, of the session and its ancestors (100
-- sessions at most, as upstream walks them), in one global id order; the
-- live messages only unless include_inactive. The ids are collected first
-- and the rows read in id order, for the reason given at MessageList.
-- Every row also carries the session's message_count (0 without one; the
-- subquery runs once per statement), which the store makes its result
-- slice with, so a long replay does not copy its rows as it grows.
-- name: MessageConversation :many
WITH RECURSIVE lineage(id, depth) AS (
    SELECT CAST(@session_id AS TEXT), 0
    UNION ALL
    SELECT s.parent_session_id, l.depth + 1
    FROM lineage l JOIN sessions s ON s.id = l.id
    WHERE CAST(@include_ancestors AS INTEGER) AND s.parent_session_id IS NOT NULL AND l.depth < 99
)
SELECT role, content, tool_call_id, tool_calls, tool_name, effect_disposition,
    finish_reason, reasoning, reasoning_content, reasoning_details,
    codex_reasoning_items, codex_message_items, platform_message_id, observed, timestamp,
    CAST(COALESCE((SELECT c.message_count FROM sessions c WHERE c.id = @session_id), 0) AS INTEGER) AS message_count_hint
FROM messages
WHERE id IN (SELECT m.id FROM messages m
             WHERE m.session_id IN (SELECT id FROM lineage)
               AND (CAST(@include_inactive AS INTEGER) OR m.active = 1))
ORDER BY id;

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

-- MessageDeleteActive deletes one session's live messages only, keeping
-- rewound and compaction-archived rows (replace_messages(active_only=True)).
-- name: MessageDeleteActive :execrows
DELETE FROM messages WHERE session_id = @session_id AND active = 1;

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

-- ImportClosesCycle reports whether making an imported session child a
-- child of parent would close a cycle: whether child is parent or one of
-- parent's ancestors. UNION (not UNION ALL) stops the walk on a cycle
-- already in the file.
-- name: ImportClosesCycle :one
WITH RECURSIVE up(id) AS (
    SELECT CAST(@parent AS TEXT)
    UNION
    SELECT s.parent_session_id FROM up JOIN sessions s ON s.id = up.id
    WHERE s.parent_session_id IS NOT NULL
)
SELECT EXISTS (SELECT 1 FROM up WHERE id = CAST(@child AS TEXT));

-- MessageIDsTaken counts how many of a list of message ids (a JSON array)
-- are already in use.
-- name: MessageIDsTaken :one
SELECT COUNT(*) FROM messages WHERE id IN (SELECT value FROM json_each(@ids));

-- MessageInSession reads one message of one session (any active state).
-- name: MessageInSession :one
SELECT * FROM messages WHERE id = @id AND session_id = @session_id;

-- MessageRewindFrom takes back a session's live messages from id on
-- (active = 0; compacted stays 0, which marks them rewound rather than
-- summarised away).
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
-- again: rewound ones and compaction-archived ones alike (compacted is left
-- as it is), as upstream's restore_rewound.
-- name: MessageRestoreFrom :execrows
UPDATE messages SET active = 1
WHERE session_id = @session_id AND id >= @id AND active = 0;

-- MessageRecentUser reads a session's newest user messages, newest first,
-- the live ones only unless include_inactive; at most limit (-1: all).
-- name: MessageRecentUser :many
SELECT id, timestamp, content FROM messages
WHERE session_id = @session_id AND role = 'user'
  AND (CAST(@include_inactive AS INTEGER) OR active = 1)
ORDER BY id DESC
LIMIT @limit;

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
-- platform message id (any active state), through the partial index
-- idx_messages_platform_msg_id.
-- name: MessageHasPlatformID :one
SELECT EXISTS (
    SELECT 1 FROM messages
    WHERE session_id = @session_id AND platform_message_id = @platform_message_id
);

-- MessageUpTo reads a session's messages up to and including id, newest
-- first, at most limit: an anchored window's anchor and the rows before it.
-- Every active state: session search anchors on any row.
-- name: MessageUpTo :many
SELECT * FROM messages WHERE session_id = @session_id AND id <= @id
ORDER BY id DESC LIMIT @limit;

-- MessageAfter reads a session's messages after id, oldest first, at most
-- limit: an anchored window's rows after the anchor.
-- name: MessageAfter :many
SELECT * FROM messages WHERE session_id = @session_id AND id > @id
ORDER BY id LIMIT @limit;

-- MessageBookendStart reads the first messages of a session before id
-- whose content has a length (length() stops at a NUL, so structured
-- content, which starts with one, never qualifies), of the roles in the
-- JSON array roles unless all_roles; oldest first, at most limit.
-- name: MessageBookendStart :many
SELECT * FROM messages
WHERE session_id = @session_id AND id < @id
  AND (CAST(@all_roles AS INTEGER) OR role IN (SELECT value FROM json_each(@roles)))
  AND length(content) > 0
ORDER BY id LIMIT @limit;

-- MessageBookendEnd is MessageBookendStart at the session's end: the last
-- messages after id, newest first.
-- name: MessageBookendEnd :many
SELECT * FROM messages
WHERE session_id = @session_id AND id > @id
  AND (CAST(@all_roles AS INTEGER) OR role IN (SELECT value FROM json_each(@roles)))
  AND length(content) > 0
ORDER BY id DESC LIMIT @limit;

-- ExportCount counts the sessions an export of every session (source
-- NULL) or of one source writes: archived and delegate sessions included,
-- as upstream's export_all lists them.
-- name: ExportCount :one
SELECT COUNT(*) FROM sessions WHERE sqlc.narg('source') IS NULL OR source = sqlc.narg('source');
