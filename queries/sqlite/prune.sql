-- SessionPruneCandidates is upstream's _prune_filter_where, the one
-- selection prune_sessions, archive_sessions and list_prune_candidates share:
-- ended sessions only (a live one is never selected), every filter given
-- ANDed, a NULL filter not applied. The caller builds the LIKE patterns as
-- upstream does: title_like, model_like and branch_like are
-- "%needle%" with the needle lowercased (Python's str.lower()), matched
-- against LOWER(column), and provider is lowercased and compared with
-- LOWER(billing_provider); none is escaped, so % and _ in a needle are
-- wildcards there too. cwd_exact, cwd_slash and cwd_backslash are a cwd
-- prefix and its two "under it" patterns. Tokens are input + output, cost
-- is the actual cost falling back to the estimate, NULL counting as 0.
-- archived NULL selects both; 0 or 1 only those rows.
-- Oldest first (upstream orders by started_at alone; id breaks ties here).
-- name: SessionPruneCandidates :many
SELECT s.id FROM sessions s
WHERE s.ended_at IS NOT NULL
  AND (CAST(sqlc.narg(started_before) AS REAL) IS NULL OR s.started_at < CAST(sqlc.narg(started_before) AS REAL))
  AND (CAST(sqlc.narg(started_after) AS REAL) IS NULL OR s.started_at >= CAST(sqlc.narg(started_after) AS REAL))
  AND (CAST(sqlc.narg(source) AS TEXT) IS NULL OR s.source = CAST(sqlc.narg(source) AS TEXT))
  AND (CAST(sqlc.narg(title_like) AS TEXT) IS NULL
       OR LOWER(COALESCE(s.title, '')) LIKE CAST(sqlc.narg(title_like) AS TEXT))
  AND (CAST(sqlc.narg(end_reason) AS TEXT) IS NULL OR s.end_reason = CAST(sqlc.narg(end_reason) AS TEXT))
  AND (CAST(sqlc.narg(cwd_exact) AS TEXT) IS NULL
       OR s.cwd = CAST(sqlc.narg(cwd_exact) AS TEXT)
       OR s.cwd LIKE CAST(sqlc.narg(cwd_slash) AS TEXT)
       OR s.cwd LIKE CAST(sqlc.narg(cwd_backslash) AS TEXT))
  AND (CAST(sqlc.narg(min_messages) AS INTEGER) IS NULL OR s.message_count >= CAST(sqlc.narg(min_messages) AS INTEGER))
  AND (CAST(sqlc.narg(max_messages) AS INTEGER) IS NULL OR s.message_count <= CAST(sqlc.narg(max_messages) AS INTEGER))
  AND (CAST(sqlc.narg(model_like) AS TEXT) IS NULL
       OR LOWER(COALESCE(s.model, '')) LIKE CAST(sqlc.narg(model_like) AS TEXT))
  AND (CAST(sqlc.narg(provider) AS TEXT) IS NULL
       OR LOWER(COALESCE(s.billing_provider, '')) = CAST(sqlc.narg(provider) AS TEXT))
  AND (CAST(sqlc.narg(user_id) AS TEXT) IS NULL OR s.user_id = CAST(sqlc.narg(user_id) AS TEXT))
  AND (CAST(sqlc.narg(chat_id) AS TEXT) IS NULL OR s.chat_id = CAST(sqlc.narg(chat_id) AS TEXT))
  AND (CAST(sqlc.narg(chat_type) AS TEXT) IS NULL OR s.chat_type = CAST(sqlc.narg(chat_type) AS TEXT))
  AND (CAST(sqlc.narg(branch_like) AS TEXT) IS NULL
       OR LOWER(COALESCE(s.git_branch, '')) LIKE CAST(sqlc.narg(branch_like) AS TEXT))
  AND (CAST(sqlc.narg(min_tokens) AS INTEGER) IS NULL
       OR (COALESCE(s.input_tokens, 0) + COALESCE(s.output_tokens, 0)) >= CAST(sqlc.narg(min_tokens) AS INTEGER))
  AND (CAST(sqlc.narg(max_tokens) AS INTEGER) IS NULL
       OR (COALESCE(s.input_tokens, 0) + COALESCE(s.output_tokens, 0)) <= CAST(sqlc.narg(max_tokens) AS INTEGER))
  AND (CAST(sqlc.narg(min_cost) AS REAL) IS NULL
       OR COALESCE(s.actual_cost_usd, s.estimated_cost_usd, 0) >= CAST(sqlc.narg(min_cost) AS REAL))
  AND (CAST(sqlc.narg(max_cost) AS REAL) IS NULL
       OR COALESCE(s.actual_cost_usd, s.estimated_cost_usd, 0) <= CAST(sqlc.narg(max_cost) AS REAL))
  AND (CAST(sqlc.narg(min_tool_calls) AS INTEGER) IS NULL
       OR COALESCE(s.tool_call_count, 0) >= CAST(sqlc.narg(min_tool_calls) AS INTEGER))
  AND (CAST(sqlc.narg(max_tool_calls) AS INTEGER) IS NULL
       OR COALESCE(s.tool_call_count, 0) <= CAST(sqlc.narg(max_tool_calls) AS INTEGER))
  AND (CAST(sqlc.narg(archived) AS INTEGER) IS NULL OR s.archived = CAST(sqlc.narg(archived) AS INTEGER))
ORDER BY s.started_at, s.id;

-- SessionGhostIDs lists prune_empty_ghost_sessions' sessions: TUI sessions
-- that ended untitled without a single message (active or not) and started
-- before the cutoff (24 hours ago).
-- name: SessionGhostIDs :many
SELECT id FROM sessions
WHERE source = 'tui' AND title IS NULL AND ended_at IS NOT NULL AND started_at < CAST(@cutoff AS REAL)
  AND NOT EXISTS (SELECT 1 FROM messages WHERE messages.session_id = sessions.id)
ORDER BY started_at, id;

-- SessionFinalizeOrphanedCompression is
-- finalize_orphaned_compression_sessions: a compression continuation that
-- never got an end (its parent ended 'compression', it has messages but no
-- API call was ever counted, and it started before the cutoff, 7 days ago)
-- is ended now as 'orphaned_compression'. Its messages are kept.
-- name: SessionFinalizeOrphanedCompression :execrows
UPDATE sessions
SET ended_at = CAST(@now AS REAL), end_reason = 'orphaned_compression'
WHERE api_call_count = 0
  AND end_reason IS NULL
  AND ended_at IS NULL
  AND started_at < CAST(@cutoff AS REAL)
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
-- name: SessionArchiveLineage :many
WITH RECURSIVE
    ancestors(id) AS (
        SELECT CAST(@id AS TEXT)
        UNION
        SELECT parent.id
        FROM ancestors a
        JOIN sessions child ON child.id = a.id
        JOIN sessions parent ON parent.id = child.parent_session_id
        WHERE parent.end_reason = 'compression'
    ),
    descendants(id) AS (
        SELECT CAST(@id AS TEXT)
        UNION
        SELECT child.id
        FROM descendants d
        JOIN sessions parent ON parent.id = d.id
        JOIN sessions child ON child.parent_session_id = parent.id
        WHERE parent.end_reason = 'compression'
    )
SELECT CAST(id AS TEXT) AS id FROM ancestors
UNION
SELECT CAST(id AS TEXT) AS id FROM descendants;

-- SessionSetArchived sets one session's archived flag. A row that held the
-- flag already counts as changed (SQLite's changes(), as upstream's
-- rowcount).
-- name: SessionSetArchived :execrows
UPDATE sessions SET archived = CAST(@archived AS INTEGER) WHERE id = @id;
