-- The PostgreSQL twins of queries/sqlite/gateway.sql.
--
-- Gateway sessions: the routing key and peer on a session row (v17), its
-- presentation metadata (v18), and the routing index gateway_routing (v19)
-- that replaces sessions.json. Times are REAL epoch seconds from the
-- store's clock, entry_json and origin_json are the caller's text, stored
-- as given.
--
-- How the PostgreSQL text differs from SQLite's: SQLite's LOWER folds
-- ASCII letters only, PostgreSQL's lower() every letter its locale knows,
-- so the platform match folds with translate() over A-Z, ids and keys are
-- ordered COLLATE "C" (bytes, as SQLite's BINARY) whatever the database's
-- collation, and the INTEGER flags are tested with <> 0 and = 0
-- (PostgreSQL has no integer truth value).

-- GatewayRecordPeer overwrites the routing key and peer, NULLs included (a
-- peer field the gateway no longer knows must not survive), and keeps the
-- stored display name and origin when none is given.
-- PostgreSQL: as SQLite.
-- name: GatewayRecordPeer :execrows
UPDATE sessions
SET session_key = @session_key, source = @source, user_id = @user_id,
    chat_id = @chat_id, chat_type = @chat_type, thread_id = @thread_id,
    display_name = COALESCE(sqlc.narg(display_name), display_name),
    origin_json = COALESCE(sqlc.narg(origin_json), origin_json)
WHERE id = @id;

-- GatewaySetExpiryFinalized sets the expiry-finalization flag (1 or 0).
-- PostgreSQL: as SQLite.
-- name: GatewaySetExpiryFinalized :execrows
UPDATE sessions SET expiry_finalized = @expiry_finalized WHERE id = @id;

-- GatewayRoutingUpsert writes one routing entry, replacing the entry and
-- its time when the key exists in the scope.
-- PostgreSQL: as SQLite.
-- name: GatewayRoutingUpsert :exec
INSERT INTO gateway_routing (scope, session_key, entry_json, updated_at)
VALUES (@scope, @session_key, @entry_json, @updated_at)
ON CONFLICT (scope, session_key) DO UPDATE SET
    entry_json = excluded.entry_json,
    updated_at = excluded.updated_at;

-- GatewayRoutingInsert adds one entry to a scope that was just emptied.
-- PostgreSQL: as SQLite.
-- name: GatewayRoutingInsert :exec
INSERT INTO gateway_routing (scope, session_key, entry_json, updated_at)
VALUES (@scope, @session_key, @entry_json, @updated_at);

-- GatewayRoutingDeleteScope empties one scope, other scopes are untouched.
-- PostgreSQL: as SQLite.
-- name: GatewayRoutingDeleteScope :execrows
DELETE FROM gateway_routing WHERE scope = @scope;

-- GatewayRoutingDelete removes one key of a scope.
-- PostgreSQL: as SQLite.
-- name: GatewayRoutingDelete :execrows
DELETE FROM gateway_routing WHERE scope = @scope AND session_key = @session_key;

-- GatewayRoutingLoad reads a scope's entries. The order (by key, the
-- primary key's) is the one upstream's unordered SELECT gets from that index.
-- PostgreSQL: the key ordered COLLATE "C", the primary key's order on
-- SQLite (BINARY).
-- name: GatewayRoutingLoad :many
SELECT session_key, entry_json FROM gateway_routing
WHERE scope = @scope ORDER BY session_key COLLATE "C";

-- GatewaySessionList is list_gateway_sessions: for each session_key the row
-- that started last (rows sharing that start all appear), with last_active
-- (the newest message of any kind, else the start), most recently active
-- first, ties by id, newest id first, so the order is stable. The platform
-- matches source case-insensitively (ASCII, SQLite's LOWER), NULL means every
-- platform. Ended rows are listed only with include_ended.
-- PostgreSQL: translate() over A-Z for LOWER, include_ended tested with
-- <> 0, the id tie broken COLLATE "C".
-- name: GatewaySessionList :many
SELECT sqlc.embed(sessions),
    CAST(COALESCE(
        (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = sessions.id),
        sessions.started_at
    ) AS double precision) AS last_active
FROM sessions
WHERE sessions.session_key IS NOT NULL
  AND sessions.started_at = (
      SELECT MAX(s2.started_at) FROM sessions s2
      WHERE s2.session_key = sessions.session_key
  )
  AND (CAST(sqlc.narg(platform) AS text) IS NULL
       OR translate(sessions.source, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
          = translate(CAST(sqlc.narg(platform) AS text), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'))
  AND (CAST(@include_ended AS bigint) <> 0 OR sessions.ended_at IS NULL)
ORDER BY last_active DESC, sessions.id COLLATE "C" DESC;

-- GatewayOriginCandidates are the live gateway sessions of one chat
-- (find_session_by_origin), newest first (ties: greater id first). With
-- match_thread, only rows of that thread ('' matches rows without one).
-- PostgreSQL: translate() over A-Z for LOWER, match_thread tested with
-- = 0, the id tie broken COLLATE "C".
-- name: GatewayOriginCandidates :many
SELECT id, user_id FROM sessions
WHERE translate(source, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = translate(CAST(@platform AS text), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
  AND session_key IS NOT NULL
  AND chat_id = @chat_id
  AND ended_at IS NULL
  AND (CAST(@match_thread AS bigint) = 0 OR COALESCE(thread_id, '') = CAST(@thread_id AS text))
ORDER BY started_at DESC, id COLLATE "C" DESC;

-- GatewayLatestByKey is the newest recoverable session of a routing key: live,
-- or ended only by the old gateway cleanup's 'agent_close' or the TUI's
-- mistaken 'ws_orphan_reap', and holding messages (by counter or by row).
-- PostgreSQL: the id tie broken COLLATE "C".
-- name: GatewayLatestByKey :one
SELECT * FROM sessions
WHERE session_key = @session_key
  AND source = @source
  AND (ended_at IS NULL OR end_reason = 'agent_close' OR end_reason = 'ws_orphan_reap')
  AND (COALESCE(message_count, 0) > 0 OR EXISTS (
      SELECT 1 FROM messages WHERE messages.session_id = sessions.id LIMIT 1
  ))
ORDER BY started_at DESC, id COLLATE "C" DESC
LIMIT 1;

-- GatewayLatestByPeer is GatewayLatestByKey's fallback for a row whose key
-- is missing: the whole peer tuple must match ('' matching NULL), so a
-- recovery never crosses chats, threads or users.
-- PostgreSQL: the id tie broken COLLATE "C".
-- name: GatewayLatestByPeer :one
SELECT * FROM sessions
WHERE source = @source
  AND COALESCE(user_id, '') = CAST(@user_id AS text)
  AND COALESCE(chat_id, '') = CAST(@chat_id AS text)
  AND COALESCE(chat_type, '') = CAST(@chat_type AS text)
  AND COALESCE(thread_id, '') = CAST(@thread_id AS text)
  AND (ended_at IS NULL OR end_reason = 'agent_close' OR end_reason = 'ws_orphan_reap')
  AND (COALESCE(message_count, 0) > 0 OR EXISTS (
      SELECT 1 FROM messages WHERE messages.session_id = sessions.id LIMIT 1
  ))
ORDER BY started_at DESC, id COLLATE "C" DESC
LIMIT 1;
