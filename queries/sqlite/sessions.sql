-- SessionGet returns one session by exact id. Timestamps are REAL epoch
-- seconds; counters are pointers because a column added by ALTER TABLE in a
-- legacy file may hold NULL.
-- name: SessionGet :one
SELECT * FROM sessions WHERE id = @id;

-- SessionExists reports whether a session id exists; the store uses it to
-- tell "no such session" from "nothing to change" after an UPDATE matched no
-- row.
-- name: SessionExists :one
SELECT EXISTS (SELECT 1 FROM sessions WHERE id = @id);

-- SessionResolvePrefix finds sessions whose id starts with a prefix, newest
-- first. The pattern arrives LIKE-escaped with a trailing %. Two rows would
-- tell a unique prefix from an ambiguous one; 21 let an ambiguous prefix list
-- its first 20 candidates (store.MaxAmbiguousCandidates) and say whether there
-- are more. LIKE is ASCII case-insensitive, as in the original, so the
-- prefix cannot narrow the primary-key index to a range, but the subquery
-- reads that index alone (ids and rowids) and only the matches' rows are
-- read for their start: upstream's text reads every session row in start
-- order. The same rows in the same order (id is unique). like(p, id, e)
-- is id LIKE p ESCAPE e (sqlc cannot parse ESCAPE inside a subquery).
-- name: SessionResolvePrefix :many
SELECT id FROM sessions
WHERE rowid IN (SELECT rowid FROM sessions WHERE like(@pattern, id, char(92)))
ORDER BY started_at DESC, id DESC LIMIT 21;

-- SessionCreate inserts a session; OR IGNORE makes the first row for an id
-- win (0 rows affected: it existed). A parent_session_id naming no session
-- still fails: OR IGNORE does not cover foreign keys.
-- name: SessionCreate :execrows
INSERT OR IGNORE INTO sessions (
    id, source, user_id, session_key, chat_id, chat_type, thread_id,
    model, model_config, system_prompt, parent_session_id, cwd, started_at
) VALUES (
    @id, @source, @user_id, @session_key, @chat_id, @chat_type, @thread_id,
    @model, @model_config, @system_prompt, @parent_session_id, @cwd, @started_at
);

-- SessionUpsert is upstream's create_session / ensure_session (v21): insert
-- the row, or fill only the NULL columns of an existing one. source, user_id
-- and started_at are never changed by the conflict branch, so a later bare
-- call (source 'unknown') cannot clobber what an earlier writer set. A new
-- parent naming no session fails the foreign key; an existing parent is
-- kept, and the call's parent is then not checked.
-- name: SessionUpsert :exec
INSERT INTO sessions (
    id, source, user_id, session_key, chat_id, chat_type, thread_id,
    model, model_config, system_prompt, parent_session_id, cwd, started_at
) VALUES (
    @id, @source, @user_id, @session_key, @chat_id, @chat_type, @thread_id,
    @model, @model_config, @system_prompt, @parent_session_id, @cwd, @started_at
)
ON CONFLICT(id) DO UPDATE SET
    model = COALESCE(sessions.model, excluded.model),
    model_config = COALESCE(sessions.model_config, excluded.model_config),
    system_prompt = COALESCE(sessions.system_prompt, excluded.system_prompt),
    session_key = COALESCE(sessions.session_key, excluded.session_key),
    chat_id = COALESCE(sessions.chat_id, excluded.chat_id),
    chat_type = COALESCE(sessions.chat_type, excluded.chat_type),
    thread_id = COALESCE(sessions.thread_id, excluded.thread_id),
    parent_session_id = COALESCE(sessions.parent_session_id, excluded.parent_session_id),
    cwd = COALESCE(sessions.cwd, excluded.cwd);

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

-- SessionAddTokens is update_token_counts in incremental mode, column for
-- column (spec 6.5): counters add; the estimated cost becomes 0.0 from NULL
-- on the first call; the actual cost moves only when one is given; cost
-- status/source/pricing take a new non-NULL value; billing_* keep the first
-- non-NULL value forever; model is only backfilled.
-- name: SessionAddTokens :execrows
UPDATE sessions SET
    input_tokens = input_tokens + CAST(@input_tokens AS INTEGER),
    output_tokens = output_tokens + CAST(@output_tokens AS INTEGER),
    cache_read_tokens = cache_read_tokens + CAST(@cache_read_tokens AS INTEGER),
    cache_write_tokens = cache_write_tokens + CAST(@cache_write_tokens AS INTEGER),
    reasoning_tokens = reasoning_tokens + CAST(@reasoning_tokens AS INTEGER),
    estimated_cost_usd = COALESCE(estimated_cost_usd, 0) + COALESCE(CAST(sqlc.narg(estimated_cost_usd) AS REAL), 0),
    actual_cost_usd = CASE
        WHEN CAST(sqlc.narg(actual_cost_usd) AS REAL) IS NULL THEN actual_cost_usd
        ELSE COALESCE(actual_cost_usd, 0) + sqlc.narg(actual_cost_usd)
    END,
    cost_status = COALESCE(sqlc.narg(cost_status), cost_status),
    cost_source = COALESCE(sqlc.narg(cost_source), cost_source),
    pricing_version = COALESCE(sqlc.narg(pricing_version), pricing_version),
    billing_provider = COALESCE(billing_provider, sqlc.narg(billing_provider)),
    billing_base_url = COALESCE(billing_base_url, sqlc.narg(billing_base_url)),
    billing_mode = COALESCE(billing_mode, sqlc.narg(billing_mode)),
    model = COALESCE(model, sqlc.narg(model)),
    api_call_count = COALESCE(api_call_count, 0) + CAST(@api_call_count AS INTEGER)
WHERE id = @id;

-- SessionSetTokens is update_token_counts in absolute mode: the counters and
-- api_call_count are set (an omitted one becomes 0, as in the original), the
-- estimated cost is set with NULL meaning 0.0, the actual cost is set only
-- when given; the text columns follow the incremental rules.
-- name: SessionSetTokens :execrows
UPDATE sessions SET
    input_tokens = CAST(@input_tokens AS INTEGER),
    output_tokens = CAST(@output_tokens AS INTEGER),
    cache_read_tokens = CAST(@cache_read_tokens AS INTEGER),
    cache_write_tokens = CAST(@cache_write_tokens AS INTEGER),
    reasoning_tokens = CAST(@reasoning_tokens AS INTEGER),
    estimated_cost_usd = COALESCE(CAST(sqlc.narg(estimated_cost_usd) AS REAL), 0),
    actual_cost_usd = CASE
        WHEN CAST(sqlc.narg(actual_cost_usd) AS REAL) IS NULL THEN actual_cost_usd
        ELSE sqlc.narg(actual_cost_usd)
    END,
    cost_status = COALESCE(sqlc.narg(cost_status), cost_status),
    cost_source = COALESCE(sqlc.narg(cost_source), cost_source),
    pricing_version = COALESCE(sqlc.narg(pricing_version), pricing_version),
    billing_provider = COALESCE(billing_provider, sqlc.narg(billing_provider)),
    billing_base_url = COALESCE(billing_base_url, sqlc.narg(billing_base_url)),
    billing_mode = COALESCE(billing_mode, sqlc.narg(billing_mode)),
    model = COALESCE(model, sqlc.narg(model)),
    api_call_count = CAST(@api_call_count AS INTEGER)
WHERE id = @id;

-- SessionCounters reads a session's counters inside the write transaction
-- that adds to them, so the store can refuse a sum past the int64 range
-- (SQLite would store it as a REAL) before anything is written.
-- name: SessionCounters :one
SELECT message_count, tool_call_count, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, reasoning_tokens, api_call_count
FROM sessions WHERE id = @id;

-- SessionRoute reads what update_token_counts compares and inherits inside
-- its write transaction: the session's model and billing route, and its
-- api_call_count (0 until the first accounted call).
-- name: SessionRoute :one
SELECT model, billing_provider, billing_base_url, billing_mode, api_call_count
FROM sessions WHERE id = @id;

-- SessionSetRoute is update_token_counts' "first accounted route": before
-- any call was counted, a call on another model or provider replaces the
-- requested route as a whole (NULL base URL and mode included).
-- name: SessionSetRoute :execrows
UPDATE sessions SET model = @model, billing_provider = @billing_provider,
    billing_base_url = @billing_base_url, billing_mode = @billing_mode
WHERE id = @id;

-- SessionSetModel is update_session_model: the model set unconditionally
-- (a /model switch), unlike update_token_counts' backfill.
-- name: SessionSetModel :execrows
UPDATE sessions SET model = @model WHERE id = @id;

-- SessionSetBillingRoute is update_session_billing_route: provider and base
-- URL set unconditionally, the mode only when given, and the cached system
-- prompt cleared so that the next turn rebuilds its Model:/Provider: header.
-- name: SessionSetBillingRoute :execrows
UPDATE sessions SET
    billing_provider = @billing_provider,
    billing_base_url = @billing_base_url,
    billing_mode = COALESCE(sqlc.narg(billing_mode), billing_mode),
    system_prompt = NULL
WHERE id = @id;

-- SessionSetMeta is update_session_meta: model_config replaced, the model
-- only when given.
-- name: SessionSetMeta :execrows
UPDATE sessions SET model_config = @model_config, model = COALESCE(sqlc.narg(model), model)
WHERE id = @id;

-- SessionAddMessageCounts counts one appended message and its tool calls
-- (tool_calls >= 0). (A NULL counter in a legacy row stays NULL, as in the
-- original.) It updates nothing when a sum would pass the int64 range,
-- where SQLite would store it as a REAL: an INTEGER counter already at its
-- limit (NULL, REAL and text counters are added to as before). So an
-- append needs no read of the counters first: no row updated means a
-- missing session or an overflow, which the store then tells apart by
-- reading them (checkCounters).
-- name: SessionAddMessageCounts :execrows
UPDATE sessions SET
    message_count = message_count + 1,
    tool_call_count = tool_call_count + CAST(@tool_calls AS INTEGER)
WHERE id = @id
  AND NOT (typeof(message_count) = 'integer' AND message_count = 9223372036854775807)
  AND NOT (typeof(tool_call_count) = 'integer'
           AND tool_call_count > 9223372036854775807 - CAST(@tool_calls AS INTEGER));

-- SessionSetMessageCounts sets both counters after a transcript is replaced
-- or cleared.
-- name: SessionSetMessageCounts :execrows
UPDATE sessions SET message_count = CAST(@message_count AS INTEGER), tool_call_count = CAST(@tool_call_count AS INTEGER)
WHERE id = @id;

-- SessionOrphanChildren detaches a session's direct children (they become
-- roots; grandchildren keep their parent) so the session can be deleted
-- without a foreign-key error. The schema's only cascade is
-- session_model_usage's; children, messages, compression locks, gateway
-- routing and delegation rows are the caller's to handle (the last three
-- are left, as upstream leaves them).
-- name: SessionOrphanChildren :execrows
UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = @id;

-- SessionDelete deletes one session row (its messages first, by the caller);
-- its session_model_usage rows go with it (ON DELETE CASCADE, foreign keys
-- on).
-- name: SessionDelete :execrows
DELETE FROM sessions WHERE id = @id;

-- SessionBrowse is search_sessions: every session (children included) with
-- the time of its last message (else its start), most recently active
-- first, ties by newer start, then greater id. Two changes from upstream's
-- text, same rows (TestSessionBrowseSameRows runs both):
--
-- Upstream LEFT JOINs a MAX(timestamp) GROUP BY session_id over every
-- message, which reads the whole (session_id, timestamp) index however few
-- sessions the source keeps. The correlated MAX here is one seek to the
-- end of the session's run in that index (the min/max optimisation), so
-- the cost follows the sessions, not the messages. It is the same value
-- for every session, NULL (so the start) for one without messages.
--
-- SQLite builds a row's result columns before it sorts, so sorting whole
-- rows copies every session's system prompt (kilobytes each) into the
-- sorter to return 20. The subquery sorts only rowids by the three keys
-- and keeps the page, and the outer query reads just the page's rows and
-- puts them in the same order by the same keys (id is the primary key, so
-- rows tie on all three only with NULL ids, which SQLite's TEXT PRIMARY
-- KEY admits and upstream leaves unordered too). sqlc cannot expand
-- sqlc.embed over a subquery in FROM, hence IN.
-- name: SessionBrowse :many
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id),
        s.started_at
    ) AS REAL) AS last_active
FROM sessions s
WHERE s.rowid IN (
    SELECT b.rowid FROM sessions b
    WHERE CAST(sqlc.narg(source) AS TEXT) IS NULL OR b.source = sqlc.narg(source)
    ORDER BY CAST(COALESCE(
            (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = b.id),
            b.started_at
        ) AS REAL) DESC, b.started_at DESC, b.id DESC
    LIMIT @limit OFFSET @offset
)
ORDER BY last_active DESC, s.started_at DESC, s.id DESC;

-- SessionLastActive is a session's last activity as the export order
-- computes it: its newest message's timestamp, else its start. Not CAST:
-- the export writes it as stored, as the original's export_all does.
-- name: SessionLastActive :one
SELECT COALESCE(
    (SELECT MAX(timestamp) FROM messages WHERE session_id = sessions.id), started_at
) AS last_active
FROM sessions WHERE id = CAST(@id AS TEXT);

-- SessionImport writes a session row exactly as an export carries it,
-- every column given (ImportJSONL), in the table's column order (so that
-- its parameters are a Session row). A plain INSERT: the importer skips
-- existing ids before it gets here, inside the same transaction.
-- name: SessionImport :exec
INSERT INTO sessions (
    id, source, user_id, session_key, chat_id, chat_type, thread_id, display_name,
    origin_json, expiry_finalized, model, model_config, system_prompt,
    parent_session_id, started_at, ended_at, end_reason, message_count, tool_call_count,
    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
    reasoning_tokens, cwd, git_branch, git_repo_root, billing_provider,
    billing_base_url, billing_mode, estimated_cost_usd, actual_cost_usd, cost_status,
    cost_source, pricing_version, title, api_call_count, handoff_state,
    handoff_platform, handoff_error, compression_failure_cooldown_until,
    compression_failure_error, compression_fallback_streak, rewind_count, archived
) VALUES (
    @id, @source, @user_id, @session_key, @chat_id, @chat_type, @thread_id,
    @display_name, @origin_json, @expiry_finalized, @model, @model_config,
    @system_prompt, @parent_session_id, @started_at, @ended_at, @end_reason,
    @message_count, @tool_call_count, @input_tokens, @output_tokens, @cache_read_tokens,
    @cache_write_tokens, @reasoning_tokens, @cwd, @git_branch, @git_repo_root,
    @billing_provider, @billing_base_url, @billing_mode, @estimated_cost_usd,
    @actual_cost_usd, @cost_status, @cost_source, @pricing_version, @title,
    @api_call_count, @handoff_state, @handoff_platform, @handoff_error,
    @compression_failure_cooldown_until, @compression_failure_error,
    @compression_fallback_streak, @rewind_count, @archived
);

-- SessionImportRecount sets an imported session's counters from the rows
-- just written, as upstream's import_sessions recounts them from the rows
-- it inserts: message_count is the rows HealthCounterMismatches counts (those
-- with compacted = 0 newer than the session's newest compacted row; every
-- row of a v21 export, which carries only live rows) and tool_call_count
-- their calls, counted as append_message counts them (0 for NULL, the
-- length of a JSON array, else 1). So an import never leaves counters
-- Check reports.
-- name: SessionImportRecount :exec
UPDATE sessions SET
    message_count = (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id AND m.compacted = 0
        AND NOT EXISTS (SELECT 1 FROM messages c
            WHERE c.session_id = m.session_id AND c.compacted = 1 AND c.id > m.id)),
    tool_call_count = (SELECT COALESCE(SUM(CASE
            WHEN m.tool_calls IS NULL THEN 0
            WHEN json_valid(m.tool_calls) AND json_type(m.tool_calls) = 'array' THEN json_array_length(m.tool_calls)
            ELSE 1
        END), 0) FROM messages m WHERE m.session_id = sessions.id AND m.compacted = 0
        AND NOT EXISTS (SELECT 1 FROM messages c
            WHERE c.session_id = m.session_id AND c.compacted = 1 AND c.id > m.id))
WHERE id = CAST(@id AS TEXT);

-- SessionSetParent links an imported session to its parent once the parent
-- exists (it may come later in the file than the child).
-- name: SessionSetParent :execrows
UPDATE sessions SET parent_session_id = @parent_session_id
WHERE id = @id AND parent_session_id IS NULL;

-- SessionSetCwd is update_session_cwd: the cwd, and the git branch and repo
-- root only when given (NULL keeps the stored value, so a failed probe never
-- clobbers one captured earlier).
-- name: SessionSetCwd :execrows
UPDATE sessions SET
    cwd = @cwd,
    git_branch = COALESCE(sqlc.narg(git_branch), git_branch),
    git_repo_root = COALESCE(sqlc.narg(git_repo_root), git_repo_root)
WHERE id = @id;

-- SessionBackfillRepoRoot is one pair of backfill_repo_roots: every session
-- of a cwd that has no repo root yet (NULL or '') gets this one.
-- name: SessionBackfillRepoRoot :execrows
UPDATE sessions SET git_repo_root = @git_repo_root
WHERE cwd = @cwd AND COALESCE(git_repo_root, '') = '';

-- SessionDelegateTags lists the sessions tagged as delegate (subagent)
-- runs: model_config carries a non-null _delegate_from. delegate_from is the
-- marker as text; delegate_from_is_text says whether it is a JSON string (a
-- number never equals an id, as upstream's bound ids never equal it). DeleteSession walks these rows
-- in Go to find the delegates to delete with a parent. A model_config that
-- json_extract cannot read (json_valid flags 10: JSON5 or JSONB) is
-- untagged; upstream's delete fails on it with "malformed JSON".
-- name: SessionDelegateTags :many
SELECT id, parent_session_id,
    CAST(json_extract(model_config, '$._delegate_from') AS TEXT) AS delegate_from,
    CAST(json_type(model_config, '$._delegate_from') = 'text' AS INTEGER) AS delegate_from_is_text
FROM sessions
WHERE json_valid(model_config, 10)
  AND json_extract(model_config, '$._delegate_from') IS NOT NULL;

-- SessionDeleteIfEmpty is delete_session_if_empty: the row goes only when
-- it has no title, no message (active or not) and no child, checked in the
-- same statement. Its usage rows go by the foreign key's cascade.
-- name: SessionDeleteIfEmpty :execrows
DELETE FROM sessions
WHERE id = CAST(@id AS TEXT) AND title IS NULL
  AND NOT EXISTS (SELECT 1 FROM messages WHERE messages.session_id = sessions.id)
  AND NOT EXISTS (SELECT 1 FROM sessions child WHERE child.parent_session_id = sessions.id);

-- SessionEmptyIDs lists the sessions delete_empty_sessions deletes: ended,
-- not archived, message_count 0 (a live session is never swept).
-- name: SessionEmptyIDs :many
SELECT id FROM sessions
WHERE message_count = 0 AND ended_at IS NOT NULL AND archived = 0
ORDER BY started_at, id;

-- SessionCountEmpty is count_empty_sessions: SessionEmptyIDs counted.
-- name: SessionCountEmpty :one
SELECT COUNT(*) FROM sessions
WHERE message_count = 0 AND ended_at IS NOT NULL AND archived = 0;
