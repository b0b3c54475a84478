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
-- PostgreSQL: LIKE is case-sensitive here, so both sides are lowered by
-- translate over A-Z alone, SQLite's ASCII-only case folding (lower or
-- ILIKE would fold every script), with ESCAPE chr(92), the backslash. No
-- rowid subquery: the same rows, filtered then sorted (id COLLATE "C",
-- SQLite's byte order).
-- name: SessionResolvePrefix :many
SELECT id FROM sessions
WHERE translate(id, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE translate(@pattern::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE chr(92)
ORDER BY started_at DESC, id COLLATE "C" DESC LIMIT 21;

-- SessionCreate inserts a session; OR IGNORE makes the first row for an id
-- win (0 rows affected: it existed). A parent_session_id naming no session
-- still fails: OR IGNORE does not cover foreign keys.
-- PostgreSQL: ON CONFLICT DO NOTHING is what OR IGNORE does to the primary
-- key (and to the unique title index, which this insert does not set), and
-- OR IGNORE also skips a row with a NULL in a NOT NULL column (0 rows, no
-- error), which the WHERE does for started_at, the one such column that
-- may be NULL (id and source are Go strings). Its cast gives PostgreSQL the
-- type, which INSERT ... SELECT does not infer. A missing parent still
-- fails the foreign key (23503), as on SQLite.
-- name: SessionCreate :execrows
INSERT INTO sessions (
    id, source, user_id, session_key, chat_id, chat_type, thread_id,
    model, model_config, system_prompt, parent_session_id, cwd, started_at
)
SELECT
    @id, @source, @user_id, @session_key, @chat_id, @chat_type, @thread_id,
    @model, @model_config, @system_prompt, @parent_session_id, @cwd, @started_at
WHERE @started_at::float8 IS NOT NULL
ON CONFLICT DO NOTHING;

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
-- PostgreSQL: CAST(x AS INTEGER) and CAST(x AS REAL) are ::bigint and
-- ::float8, and each nullable parameter is cast to its type where SQLite
-- read it untyped. A counter past the int64 range fails here (22003) where
-- SQLite stores a REAL: the store refuses such a sum first (SessionCounters).
-- name: SessionAddTokens :execrows
UPDATE sessions SET
    input_tokens = input_tokens + @input_tokens::bigint,
    output_tokens = output_tokens + @output_tokens::bigint,
    cache_read_tokens = cache_read_tokens + @cache_read_tokens::bigint,
    cache_write_tokens = cache_write_tokens + @cache_write_tokens::bigint,
    reasoning_tokens = reasoning_tokens + @reasoning_tokens::bigint,
    estimated_cost_usd = hermes_add(COALESCE(estimated_cost_usd, 0), COALESCE(sqlc.narg(estimated_cost_usd)::float8, 0)),
    actual_cost_usd = CASE
        WHEN sqlc.narg(actual_cost_usd)::float8 IS NULL THEN actual_cost_usd
        ELSE hermes_add(COALESCE(actual_cost_usd, 0), sqlc.narg(actual_cost_usd)::float8)
    END,
    cost_status = COALESCE(sqlc.narg(cost_status)::text, cost_status),
    cost_source = COALESCE(sqlc.narg(cost_source)::text, cost_source),
    pricing_version = COALESCE(sqlc.narg(pricing_version)::text, pricing_version),
    billing_provider = COALESCE(billing_provider, sqlc.narg(billing_provider)::text),
    billing_base_url = COALESCE(billing_base_url, sqlc.narg(billing_base_url)::text),
    billing_mode = COALESCE(billing_mode, sqlc.narg(billing_mode)),
    model = COALESCE(model, sqlc.narg(model)::text),
    api_call_count = COALESCE(api_call_count, 0) + @api_call_count::bigint
WHERE id = @id;

-- SessionSetTokens is update_token_counts in absolute mode: the counters and
-- api_call_count are set (an omitted one becomes 0, as in the original), the
-- estimated cost is set with NULL meaning 0.0, the actual cost is set only
-- when given; the text columns follow the incremental rules.
-- PostgreSQL: the casts of SessionAddTokens.
-- name: SessionSetTokens :execrows
UPDATE sessions SET
    input_tokens = @input_tokens::bigint,
    output_tokens = @output_tokens::bigint,
    cache_read_tokens = @cache_read_tokens::bigint,
    cache_write_tokens = @cache_write_tokens::bigint,
    reasoning_tokens = @reasoning_tokens::bigint,
    estimated_cost_usd = COALESCE(sqlc.narg(estimated_cost_usd)::float8, 0),
    actual_cost_usd = CASE
        WHEN sqlc.narg(actual_cost_usd)::float8 IS NULL THEN actual_cost_usd
        ELSE sqlc.narg(actual_cost_usd)::float8
    END,
    cost_status = COALESCE(sqlc.narg(cost_status)::text, cost_status),
    cost_source = COALESCE(sqlc.narg(cost_source)::text, cost_source),
    pricing_version = COALESCE(sqlc.narg(pricing_version)::text, pricing_version),
    billing_provider = COALESCE(billing_provider, sqlc.narg(billing_provider)::text),
    billing_base_url = COALESCE(billing_base_url, sqlc.narg(billing_base_url)::text),
    billing_mode = COALESCE(billing_mode, sqlc.narg(billing_mode)),
    model = COALESCE(model, sqlc.narg(model)::text),
    api_call_count = @api_call_count::bigint
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
-- original.) It updates nothing when a sum would pass the int64 range (a
-- counter already at its limit), as the SQLite twin.
-- PostgreSQL: CAST(x AS INTEGER) is ::bigint; every counter is a bigint.
-- name: SessionAddMessageCounts :execrows
UPDATE sessions SET
    message_count = message_count + 1,
    tool_call_count = tool_call_count + @tool_calls::bigint
WHERE id = @id
  AND (message_count IS NULL OR message_count < 9223372036854775807)
  AND (tool_call_count IS NULL OR tool_call_count <= 9223372036854775807 - @tool_calls::bigint);

-- SessionSetMessageCounts sets both counters after a transcript is replaced
-- or cleared.
-- PostgreSQL: CAST(x AS INTEGER) is ::bigint.
-- name: SessionSetMessageCounts :execrows
UPDATE sessions SET message_count = @message_count::bigint, tool_call_count = @tool_call_count::bigint
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
-- PostgreSQL: no rowid subquery (there is no rowid, and PostgreSQL's sort
-- of a page keeps a long system prompt as its TOAST pointer), so the rows
-- are filtered, sorted and paged in one query, by the same keys (id
-- COLLATE "C", SQLite's byte order, and ids are never NULL here). The
-- CASTs are ::float8 and ::text, LIMIT and OFFSET cast to bigint for int64
-- parameters, as SQLite's are. A negative LIMIT is no limit and a negative
-- OFFSET is 0 on SQLite, an error on PostgreSQL: NULLIF(GREATEST(l, -1),
-- -1) makes the one NULL (no limit) and GREATEST(o, 0) the other 0.
-- name: SessionBrowse :many
SELECT sqlc.embed(s),
    COALESCE(
        (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id),
        s.started_at
    )::float8 AS last_active
FROM sessions s
WHERE sqlc.narg(source)::text IS NULL OR s.source = sqlc.narg(source)::text
ORDER BY last_active DESC, s.started_at DESC, s.id COLLATE "C" DESC
LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1) OFFSET GREATEST(sqlc.arg('offset')::bigint, 0);

-- SessionLastActive is a session's last activity as the export order
-- computes it: its newest message's timestamp, else its start. Not CAST:
-- the export writes it as stored, as the original's export_all does.
-- PostgreSQL: CAST(@id AS TEXT) is @id::text.
-- name: SessionLastActive :one
SELECT COALESCE(
    (SELECT MAX(timestamp) FROM messages WHERE session_id = sessions.id), started_at
) AS last_active
FROM sessions WHERE id = @id::text;

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
-- PostgreSQL: json_valid and json_type are jsonb_typeof of
-- hermes_json_or_null, the schema's jsonb cast that gives NULL for text
-- PostgreSQL cannot read as JSON (PostgreSQL 15 has no IS JSON), so one bad
-- row cannot fail the statement. Text both read alike counts alike. jsonb
-- refuses a string holding \u0000 or a lone surrogate escape that
-- json_valid accepts: such a tool_calls counts 1 here.
-- name: SessionImportRecount :exec
UPDATE sessions SET
    message_count = (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id AND m.compacted = 0
        AND NOT EXISTS (SELECT 1 FROM messages c
            WHERE c.session_id = m.session_id AND c.compacted = 1 AND c.id > m.id)),
    tool_call_count = (SELECT COALESCE(SUM(CASE
            WHEN m.tool_calls IS NULL THEN 0
            WHEN jsonb_typeof(hermes_json_or_null(m.tool_calls)) = 'array' THEN jsonb_array_length(hermes_json_or_null(m.tool_calls))
            ELSE 1
        END), 0) FROM messages m WHERE m.session_id = sessions.id AND m.compacted = 0
        AND NOT EXISTS (SELECT 1 FROM messages c
            WHERE c.session_id = m.session_id AND c.compacted = 1 AND c.id > m.id))
WHERE id = @id::text;

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
-- PostgreSQL: json_valid(x, 10) and json_extract are hermes_json_or_null
-- (the schema's jsonb cast, NULL where PostgreSQL cannot read the text,
-- PostgreSQL 15 having no IS JSON) and ->. jsonb reads RFC 8259 JSON only,
-- so a JSON5 model_config SQLite reads is untagged here, as is one whose
-- strings hold \u0000 or a lone surrogate escape, and of duplicate keys
-- jsonb keeps the last where json_extract reads the first. A JSON null
-- marker is no marker, as json_extract's SQL NULL is none. A string marker
-- is its text on both, true and false are 1 and 0 as json_extract gives
-- them, and any other marker is jsonb's text of it, which may be spelled
-- otherwise than SQLite's (1e2 is 100 here, 100.0 there) but is never
-- compared: delegate_from_is_text is 0 for it. The strpos test skips, before
-- any parse, the rows that cannot carry the key (it is spelled out or
-- written with a \u escape). SQLite returns the rows in rowid order
-- (insertion order), which sets the order DeleteSession reports the
-- children in: PostgreSQL has no such order (an UPDATE moves a row), so
-- the rows come by start, then id, which is insertion order wherever the
-- sessions were created in the order they started.
-- name: SessionDelegateTags :many
SELECT id, parent_session_id,
    (CASE jsonb_typeof(d.marker)
        WHEN 'string' THEN d.marker #>> '{}'
        WHEN 'boolean' THEN CASE WHEN d.marker = 'true'::jsonb THEN '1' ELSE '0' END
        ELSE d.marker::text
    END)::text AS delegate_from,
    (jsonb_typeof(d.marker) = 'string')::int::bigint AS delegate_from_is_text
FROM sessions
CROSS JOIN LATERAL (SELECT hermes_json_or_null(model_config) -> '_delegate_from' AS marker) d
WHERE (strpos(model_config, '_delegate_from') > 0 OR strpos(model_config, chr(92) || 'u') > 0)
  AND jsonb_typeof(d.marker) <> 'null'
ORDER BY started_at, id COLLATE "C";

-- SessionDeleteIfEmpty is delete_session_if_empty: the row goes only when
-- it has no title, no message (active or not) and no child, checked in the
-- same statement. Its usage rows go by the foreign key's cascade.
-- PostgreSQL: CAST(@id AS TEXT) is @id::text.
-- name: SessionDeleteIfEmpty :execrows
DELETE FROM sessions
WHERE id = @id::text AND title IS NULL
  AND NOT EXISTS (SELECT 1 FROM messages WHERE messages.session_id = sessions.id)
  AND NOT EXISTS (SELECT 1 FROM sessions child WHERE child.parent_session_id = sessions.id);

-- SessionEmptyIDs lists the sessions delete_empty_sessions deletes: ended,
-- not archived, message_count 0 (a live session is never swept).
-- PostgreSQL: ids tie-break COLLATE "C", SQLite's byte order.
-- name: SessionEmptyIDs :many
SELECT id FROM sessions
WHERE message_count = 0 AND ended_at IS NOT NULL AND archived = 0
ORDER BY started_at, id COLLATE "C";

-- SessionCountEmpty is count_empty_sessions: SessionEmptyIDs counted.
-- name: SessionCountEmpty :one
SELECT COUNT(*) FROM sessions
WHERE message_count = 0 AND ended_at IS NOT NULL AND archived = 0;
