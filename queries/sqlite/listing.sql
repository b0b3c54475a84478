-- The listing queries share one filter, upstream's list_sessions_rich and
-- session_count WHERE clauses with every optional part bound as a parameter
-- (NULL or 0: that part is off), written out in each query because sqlc has
-- no way to share SQL text:
--
--   include_children 0 keeps only what a picker shows: roots and /branch
--     children (_LISTABLE_CHILD_SQL: a child carrying the _branched_from
--     marker, or whose parent ended 'branched' before it started), and
--     never a row carrying the _delegate_from marker, even an orphaned one,
--     with one deliberate exception (upstream-v21.md 8.3): the v16
--     migration's guess '__orphaned__', which it writes on every untitled,
--     childless root of at most 25 messages holding a tool message, real
--     conversations included, stays listed as it was before the migration;
--   source, exclude_sources (a JSON array, through json_each so any length
--     is one statement);
--   cwd_prefix, cwd_like_slash and cwd_like_backslash are upstream's
--     _cwd_prefix_clause: the cwd equal to the prefix, or LIKE prefix/% or
--     prefix\%. Like upstream the prefix is not LIKE-escaped, so its % and _
--     are wildcards and ASCII letters match either case;
--   min_message_count (0: any);
--   archived NULL for every row, else only rows with that value.
--
-- The markers are read with json_extract only from a model_config that
-- json_valid accepts as JSON5 text or strict JSONB (flags 10): upstream's
-- json_extract(COALESCE(model_config, '{}'), ...) fails the whole listing
-- on one malformed value, here such a row simply carries no marker.

-- SessionListRich is list_sessions_rich newest first (by start) before its
-- compression projection: each row with the raw preview (the first user
-- message's first 63 characters, newlines as spaces; Go strips and cuts it
-- to 60) and last_active (newest message, else the start). Neither looks at
-- messages.active: rewound and compacted rows count, as upstream. Ties on
-- started_at are broken by id so pages are stable.
-- name: SessionListRich :many
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS TEXT) AS preview_raw,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS REAL) AS last_active
FROM sessions s
WHERE (CAST(@include_children AS INTEGER)
       OR ((s.parent_session_id IS NULL
            OR json_extract(CASE WHEN json_valid(s.model_config, 10) THEN s.model_config END, '$._branched_from') IS NOT NULL
            OR EXISTS (SELECT 1 FROM sessions p
                       WHERE p.id = s.parent_session_id AND p.end_reason = 'branched'
                         AND s.started_at >= p.ended_at))
           AND IFNULL(json_extract(CASE WHEN json_valid(s.model_config, 10) THEN s.model_config END, '$._delegate_from'),
                        '__orphaned__') = '__orphaned__'))
  AND (CAST(sqlc.narg(source) AS TEXT) IS NULL OR s.source = sqlc.narg(source))
  AND (CAST(sqlc.narg(exclude_sources) AS TEXT) IS NULL
       OR s.source NOT IN (SELECT value FROM json_each(sqlc.narg(exclude_sources))))
  AND (CAST(sqlc.narg(cwd_prefix) AS TEXT) IS NULL
       OR s.cwd = sqlc.narg(cwd_prefix)
       OR s.cwd LIKE CAST(sqlc.narg(cwd_like_slash) AS TEXT)
       OR s.cwd LIKE CAST(sqlc.narg(cwd_like_backslash) AS TEXT))
  AND (CAST(@min_message_count AS INTEGER) <= 0 OR s.message_count >= @min_message_count)
  AND (CAST(sqlc.narg(archived) AS INTEGER) IS NULL OR s.archived = sqlc.narg(archived))
ORDER BY s.started_at DESC, s.id DESC
LIMIT @limit OFFSET @offset;

-- SessionListRichChain is list_sessions_rich's order_by_last_active path,
-- up to the page's rows: it returns their rowids in order, and
-- SessionRichRowsByRowID reads them in the same read transaction (sqlc
-- cannot expand sqlc.embed in a statement that has a WITH anywhere).
--
-- The recursive CTE chain pairs every row the filter admits (root_id) with
-- itself and every session reachable from it over compression edges
-- (cur_id): a child of a parent that ended 'compression', unless the child
-- carries the _branched_from or _delegate_from marker or has source 'tool'.
-- Per root, cm holds the newest activity along its chain (newest message,
-- else start, of each member) and whether an id or title in the chain
-- matches the needles. Every admitted row is a root, so the filter is
-- written once (upstream repeats it around the CTE).
--
-- by_last_active 1 orders by that activity, then start, then id (upstream's
-- ORDER BY); 0 orders by start and id only, as SessionListRich. id_needle
-- keeps a row when its own id or any id in its chain contains the needle;
-- search_needle when any title or id in the chain does, or compact_needle
-- occurs in a title with '-', '_', '.' and ' ' taken out. Needles arrive
-- lowercased (Python's str.lower), and each is matched against
-- LOWER(text), SQLite's ASCII-only lowercasing, with instr(): upstream's
-- LIKE '%needle%' ESCAPE '\' on the same two strings finds exactly the same
-- rows (its case folding is ASCII-only too, and the needle holds no ASCII
-- capitals), without escaping and without LIKE's 50,000-byte pattern limit.
--
-- The CTE is UNION, not upstream's UNION ALL: on a parent cycle written by
-- hand UNION ALL never ends; with UNION every (root_id, cur_id) pair comes
-- once, which changes nothing where there is no cycle (a session has one
-- parent, so no pair is reached twice).
-- name: SessionListRichChain :many
WITH RECURSIVE chain(root_id, cur_id) AS (
    SELECT s.id, s.id FROM sessions s
    WHERE (CAST(@include_children AS INTEGER)
           OR ((s.parent_session_id IS NULL
                OR json_extract(CASE WHEN json_valid(s.model_config, 10) THEN s.model_config END, '$._branched_from') IS NOT NULL
                OR EXISTS (SELECT 1 FROM sessions p
                           WHERE p.id = s.parent_session_id AND p.end_reason = 'branched'
                             AND s.started_at >= p.ended_at))
               AND IFNULL(json_extract(CASE WHEN json_valid(s.model_config, 10) THEN s.model_config END, '$._delegate_from'),
                        '__orphaned__') = '__orphaned__'))
      AND (CAST(sqlc.narg(source) AS TEXT) IS NULL OR s.source = sqlc.narg(source))
      AND (CAST(sqlc.narg(exclude_sources) AS TEXT) IS NULL
           OR s.source NOT IN (SELECT value FROM json_each(sqlc.narg(exclude_sources))))
      AND (CAST(sqlc.narg(cwd_prefix) AS TEXT) IS NULL
           OR s.cwd = sqlc.narg(cwd_prefix)
           OR s.cwd LIKE CAST(sqlc.narg(cwd_like_slash) AS TEXT)
           OR s.cwd LIKE CAST(sqlc.narg(cwd_like_backslash) AS TEXT))
      AND (CAST(@min_message_count AS INTEGER) <= 0 OR s.message_count >= @min_message_count)
      AND (CAST(sqlc.narg(archived) AS INTEGER) IS NULL OR s.archived = sqlc.narg(archived))
    UNION
    SELECT c.root_id, child.id
    FROM chain c
    JOIN sessions parent ON parent.id = c.cur_id
    JOIN sessions child ON child.parent_session_id = c.cur_id
    WHERE parent.end_reason = 'compression'
      AND json_extract(CASE WHEN json_valid(child.model_config, 10) THEN child.model_config END, '$._branched_from') IS NULL
      AND json_extract(CASE WHEN json_valid(child.model_config, 10) THEN child.model_config END, '$._delegate_from') IS NULL
      AND COALESCE(child.source, '') != 'tool'
),
cm AS (
    SELECT chain.root_id,
        MAX(COALESCE(
            (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = chain.cur_id),
            cs.started_at
        )) AS effective_last_active,
        MAX(instr(LOWER(chain.cur_id), CAST(sqlc.narg(id_needle) AS TEXT)) > 0) AS id_hit,
        MAX(instr(LOWER(COALESCE(cs.title, '')), CAST(sqlc.narg(search_needle) AS TEXT)) > 0
            OR instr(LOWER(chain.cur_id), sqlc.narg(search_needle)) > 0
            OR instr(REPLACE(REPLACE(REPLACE(REPLACE(LOWER(COALESCE(cs.title, '')),
                   '-', ''), '_', ''), '.', ''), ' ', ''), CAST(sqlc.narg(compact_needle) AS TEXT)) > 0) AS search_hit
    FROM chain JOIN sessions cs ON cs.id = chain.cur_id
    GROUP BY chain.root_id
)
SELECT CAST(s.rowid AS INTEGER) AS row_id
FROM cm JOIN sessions s ON s.id = cm.root_id
WHERE (sqlc.narg(id_needle) IS NULL OR cm.id_hit)
  AND (sqlc.narg(search_needle) IS NULL OR cm.search_hit)
ORDER BY CASE WHEN CAST(@by_last_active AS INTEGER) THEN COALESCE(cm.effective_last_active, s.started_at) END DESC,
    s.started_at DESC, s.id DESC
LIMIT @limit OFFSET @offset;

-- SessionRichRowsByRowID reads the sessions whose rowids a JSON array
-- lists, in the array's order, shaped as SessionListRich shapes a row.
-- name: SessionRichRowsByRowID :many
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS TEXT) AS preview_raw,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS REAL) AS last_active
FROM json_each(@row_ids) j
JOIN sessions s ON s.rowid = j.value
ORDER BY j.key;

-- SessionRichRow is one session shaped as SessionListRich shapes a row; the
-- projection reads a compression tip through it. It repeats the two
-- subqueries rather than adding an optional id filter to SessionListRich:
-- "(? IS NULL OR s.id = ?)" would keep SQLite from using the primary key.
-- name: SessionRichRow :one
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS TEXT) AS preview_raw,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS REAL) AS last_active
FROM sessions s
WHERE s.id = @id;

-- SessionCountListed is session_count: the rows the listing filter admits
-- (include_children 1 unless the caller asked to exclude children).
-- name: SessionCountListed :one
SELECT COUNT(*) FROM sessions s
WHERE (CAST(@include_children AS INTEGER)
       OR ((s.parent_session_id IS NULL
            OR json_extract(CASE WHEN json_valid(s.model_config, 10) THEN s.model_config END, '$._branched_from') IS NOT NULL
            OR EXISTS (SELECT 1 FROM sessions p
                       WHERE p.id = s.parent_session_id AND p.end_reason = 'branched'
                         AND s.started_at >= p.ended_at))
           AND IFNULL(json_extract(CASE WHEN json_valid(s.model_config, 10) THEN s.model_config END, '$._delegate_from'),
                        '__orphaned__') = '__orphaned__'))
  AND (CAST(sqlc.narg(source) AS TEXT) IS NULL OR s.source = sqlc.narg(source))
  AND (CAST(sqlc.narg(exclude_sources) AS TEXT) IS NULL
       OR s.source NOT IN (SELECT value FROM json_each(sqlc.narg(exclude_sources))))
  AND (CAST(sqlc.narg(cwd_prefix) AS TEXT) IS NULL
       OR s.cwd = sqlc.narg(cwd_prefix)
       OR s.cwd LIKE CAST(sqlc.narg(cwd_like_slash) AS TEXT)
       OR s.cwd LIKE CAST(sqlc.narg(cwd_like_backslash) AS TEXT))
  AND (CAST(@min_message_count AS INTEGER) <= 0 OR s.message_count >= @min_message_count)
  AND (CAST(sqlc.narg(archived) AS INTEGER) IS NULL OR s.archived = sqlc.narg(archived));

-- SessionDistinctCwds is distinct_session_cwds: every cwd that is not NULL
-- and not empty after TRIM (SQLite's TRIM takes only spaces, as upstream
-- sends it), with how many sessions ran there (children and branches
-- included) and the newest end or start among them; archived rows only
-- when include_archived is set. Upstream has no ORDER BY (its rows come in
-- GROUP BY order, which SQLite happens to make cwd order); the store orders
-- by cwd so the order is a promise.
-- name: SessionDistinctCwds :many
SELECT CAST(cwd AS TEXT) AS cwd,
    COUNT(*) AS sessions,
    CAST(COALESCE(MAX(COALESCE(ended_at, started_at, 0)), 0) AS REAL) AS last_active
FROM sessions
WHERE cwd IS NOT NULL AND TRIM(cwd) != ''
  AND (CAST(@include_archived AS INTEGER) OR archived = 0)
GROUP BY cwd
ORDER BY cwd;
