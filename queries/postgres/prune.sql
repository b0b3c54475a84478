-- The PostgreSQL twins of queries/sqlite/prune.sql.
--
-- How the PostgreSQL text differs from SQLite's: SQLite's LOWER folds
-- ASCII letters only and its LIKE folds ASCII letters and has no escape
-- character without ESCAPE, PostgreSQL's lower() folds every letter its
-- locale knows and its LIKE is case-sensitive with a backslash escape: so
-- LOWER is translate() over A-Z, a LIKE folds both sides so and has
-- ESCAPE '' (the rows SQLite's LIKE finds, byte for byte). REAL and
-- INTEGER casts are double precision and bigint (PostgreSQL's REAL and
-- INTEGER are 32-bit), ids are ordered COLLATE "C" (bytes, as SQLite's
-- BINARY) whatever the database's collation.

-- SessionPruneCandidates is upstream's _prune_filter_where, the one
-- selection prune_sessions, archive_sessions and list_prune_candidates share:
-- ended sessions only (a live one is never selected), every filter given
-- ANDed, a NULL filter not applied. The caller builds the LIKE patterns as
-- upstream does: title_like, model_like and branch_like are
-- "%needle%" with the needle lowercased (Python's str.lower()), matched
-- against LOWER(column), and provider is lowercased and compared with
-- LOWER(billing_provider), none is escaped, so % and _ in a needle are
-- wildcards there too. cwd_exact, cwd_slash and cwd_backslash are a cwd
-- prefix and its two "under it" patterns. Tokens are input + output, cost
-- is the actual cost falling back to the estimate, NULL counting as 0.
-- archived NULL selects both, 0 or 1 only those rows.
-- Oldest first (upstream orders by started_at alone, id breaks ties here).
-- PostgreSQL: LOWER and LIKE as the file header says, and the token sum
-- in numeric: bigint addition fails past 2^63 where SQLite's turns REAL.
-- name: SessionPruneCandidates :many
SELECT s.id FROM sessions s
WHERE s.ended_at IS NOT NULL
  AND (CAST(sqlc.narg(started_before) AS double precision) IS NULL OR s.started_at < CAST(sqlc.narg(started_before) AS double precision))
  AND (CAST(sqlc.narg(started_after) AS double precision) IS NULL OR s.started_at >= CAST(sqlc.narg(started_after) AS double precision))
  AND (CAST(sqlc.narg(source) AS text) IS NULL OR s.source = CAST(sqlc.narg(source) AS text))
  AND (CAST(sqlc.narg(title_like) AS text) IS NULL
       OR translate(COALESCE(s.title, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
          LIKE translate(CAST(sqlc.narg(title_like) AS text), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE '')
  AND (CAST(sqlc.narg(end_reason) AS text) IS NULL OR s.end_reason = CAST(sqlc.narg(end_reason) AS text))
  AND (CAST(sqlc.narg(cwd_exact) AS text) IS NULL
       OR s.cwd = CAST(sqlc.narg(cwd_exact) AS text)
       OR translate(s.cwd, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE translate(CAST(sqlc.narg(cwd_slash) AS text), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE ''
       OR translate(s.cwd, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') LIKE translate(CAST(sqlc.narg(cwd_backslash) AS text), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE '')
  AND (CAST(sqlc.narg(min_messages) AS bigint) IS NULL OR s.message_count >= CAST(sqlc.narg(min_messages) AS bigint))
  AND (CAST(sqlc.narg(max_messages) AS bigint) IS NULL OR s.message_count <= CAST(sqlc.narg(max_messages) AS bigint))
  AND (CAST(sqlc.narg(model_like) AS text) IS NULL
       OR translate(COALESCE(s.model, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
          LIKE translate(CAST(sqlc.narg(model_like) AS text), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE '')
  AND (CAST(sqlc.narg(provider) AS text) IS NULL
       OR translate(COALESCE(s.billing_provider, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = CAST(sqlc.narg(provider) AS text))
  AND (CAST(sqlc.narg(user_id) AS text) IS NULL OR s.user_id = CAST(sqlc.narg(user_id) AS text))
  AND (CAST(sqlc.narg(chat_id) AS text) IS NULL OR s.chat_id = CAST(sqlc.narg(chat_id) AS text))
  AND (CAST(sqlc.narg(chat_type) AS text) IS NULL OR s.chat_type = CAST(sqlc.narg(chat_type) AS text))
  AND (CAST(sqlc.narg(branch_like) AS text) IS NULL
       OR translate(COALESCE(s.git_branch, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
          LIKE translate(CAST(sqlc.narg(branch_like) AS text), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE '')
  AND (CAST(sqlc.narg(min_tokens) AS bigint) IS NULL
       OR (CAST(COALESCE(s.input_tokens, 0) AS numeric) + COALESCE(s.output_tokens, 0)) >= CAST(sqlc.narg(min_tokens) AS bigint))
  AND (CAST(sqlc.narg(max_tokens) AS bigint) IS NULL
       OR (CAST(COALESCE(s.input_tokens, 0) AS numeric) + COALESCE(s.output_tokens, 0)) <= CAST(sqlc.narg(max_tokens) AS bigint))
  AND (CAST(sqlc.narg(min_cost) AS double precision) IS NULL
       OR COALESCE(s.actual_cost_usd, s.estimated_cost_usd, 0) >= CAST(sqlc.narg(min_cost) AS double precision))
  AND (CAST(sqlc.narg(max_cost) AS double precision) IS NULL
       OR COALESCE(s.actual_cost_usd, s.estimated_cost_usd, 0) <= CAST(sqlc.narg(max_cost) AS double precision))
  AND (CAST(sqlc.narg(min_tool_calls) AS bigint) IS NULL
       OR COALESCE(s.tool_call_count, 0) >= CAST(sqlc.narg(min_tool_calls) AS bigint))
  AND (CAST(sqlc.narg(max_tool_calls) AS bigint) IS NULL
       OR COALESCE(s.tool_call_count, 0) <= CAST(sqlc.narg(max_tool_calls) AS bigint))
  AND (CAST(sqlc.narg(archived) AS bigint) IS NULL OR s.archived = CAST(sqlc.narg(archived) AS bigint))
ORDER BY s.started_at, s.id COLLATE "C";

-- SessionGhostIDs lists prune_empty_ghost_sessions' sessions: TUI sessions
-- that ended untitled without a single message (active or not) and started
-- before the cutoff (24 hours ago).
-- PostgreSQL: the cutoff cast to double precision, the id tie broken
-- COLLATE "C".
-- name: SessionGhostIDs :many
SELECT id FROM sessions
WHERE source = 'tui' AND title IS NULL AND ended_at IS NOT NULL AND started_at < CAST(@cutoff AS double precision)
  AND NOT EXISTS (SELECT 1 FROM messages WHERE messages.session_id = sessions.id)
ORDER BY started_at, id COLLATE "C";

-- SessionFinalizeOrphanedCompression is
-- finalize_orphaned_compression_sessions: a compression continuation that
-- never got an end (its parent ended 'compression', it has messages but no
-- API call was ever counted, and it started before the cutoff, 7 days ago)
-- is ended now as 'orphaned_compression'. Its messages are kept.
-- PostgreSQL: the times cast to double precision.
-- name: SessionFinalizeOrphanedCompression :execrows
UPDATE sessions
SET ended_at = CAST(@now AS double precision), end_reason = 'orphaned_compression'
WHERE api_call_count = 0
  AND end_reason IS NULL
  AND ended_at IS NULL
  AND started_at < CAST(@cutoff AS double precision)
  AND parent_session_id IS NOT NULL
  AND EXISTS (SELECT 1 FROM sessions p
              WHERE p.id = sessions.parent_session_id
                AND p.end_reason = 'compression' AND p.ended_at IS NOT NULL)
  AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = sessions.id);

-- SessionArchiveLineage is the lineage set_session_archived flags: the
-- session itself, its ancestors through parents that ended 'compression'
-- and its descendants through such parents (the whole logical
-- conversation, so that an unarchived root cannot bring back a listing's
-- projected tip). UNION stops at a hand-made cycle. An unknown id comes back
-- as itself. (A SELECT: sqlc binds no parameter inside an UPDATE's WITH.)
-- PostgreSQL: ordered by id COLLATE "C". SQLite's UNION hands its rows out
-- of the b-tree it deduplicates them in, so in BINARY id order, and
-- PostgreSQL's hash or sort gives no order of its own: the ORDER BY makes
-- the order SQLite's (the store only flags the rows, in any order).
-- name: SessionArchiveLineage :many
WITH RECURSIVE
    ancestors(id) AS (
        SELECT CAST(@id AS text) COLLATE "C"
        UNION
        SELECT parent.id
        FROM ancestors a
        JOIN sessions child ON child.id = a.id
        JOIN sessions parent ON parent.id = child.parent_session_id
        WHERE parent.end_reason = 'compression'
    ),
    descendants(id) AS (
        SELECT CAST(@id AS text) COLLATE "C"
        UNION
        SELECT child.id
        FROM descendants d
        JOIN sessions parent ON parent.id = d.id
        JOIN sessions child ON child.parent_session_id = parent.id
        WHERE parent.end_reason = 'compression'
    )
SELECT CAST(u.id AS text) AS id FROM (
    SELECT id FROM ancestors
    UNION
    SELECT id FROM descendants
) u
ORDER BY u.id COLLATE "C";

-- SessionSetArchived sets one session's archived flag. A row that held the
-- flag already counts as changed (SQLite's changes(), as upstream's
-- rowcount).
-- PostgreSQL: the flag cast to bigint. An UPDATE's row count counts every
-- row matched, changed or not, as changes() does.
-- name: SessionSetArchived :execrows
UPDATE sessions SET archived = CAST(@archived AS bigint) WHERE id = @id;
