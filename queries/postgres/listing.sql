-- The PostgreSQL twins of queries/sqlite/listing.sql: the same queries,
-- (the preview reads the content through hermes_content, so structured
-- content previews as the empty text, as SQLite's substr reads its NUL),
-- (a negative LIMIT is no limit and a negative OFFSET 0 on every page, as
-- SQLite reads them: NULLIF(GREATEST(n, -1), -1) and GREATEST(o, 0), since
-- PostgreSQL rejects both),
-- names, parameters and result columns (db/postgres converts to db/ by Go
-- struct conversion). The listing queries share one filter, upstream's
-- list_sessions_rich and session_count WHERE clauses with every optional
-- part bound as a parameter (NULL or 0: that part is off), written out in
-- each query because sqlc has no way to share SQL text:
--
--   include_children 0 keeps only what a picker shows: roots and /branch
--     children (_LISTABLE_CHILD_SQL: a child carrying the _branched_from
--     marker, or whose parent ended 'branched' before it started), and
--     never a row carrying the _delegate_from marker, even an orphaned one,
--     with one deliberate exception (upstream-v21.md 8.3): the v16
--     migration's guess '__orphaned__', which it writes on every untitled,
--     childless root of at most 25 messages holding a tool message, real
--     conversations included, stays listed as it was before the migration,
--   source, exclude_sources (a JSON array, through
--     jsonb_array_elements_text so any length is one statement),
--   cwd_prefix, cwd_like_slash and cwd_like_backslash are upstream's
--     _cwd_prefix_clause: the cwd equal to the prefix, or LIKE prefix/% or
--     prefix\%. Like upstream the prefix is not LIKE-escaped, so its % and _
--     are wildcards and ASCII letters match either case,
--   min_message_count (0: any),
--   archived NULL for every row, else only rows with that value.
--
-- How the PostgreSQL text differs from SQLite's, and why (in every query
-- of this file):
--   - SQLite's LIKE folds ASCII letters only and, without ESCAPE, has no
--     escape character. PostgreSQL's LIKE is case-sensitive and takes a
--     backslash as its escape (prefix\% would match a literal percent
--     sign), and its lower() and ILIKE fold every letter the locale knows.
--     So both sides are folded with translate() over A-Z only, and LIKE
--     has ESCAPE '': the rows SQLite's LIKE finds, byte for byte.
--   - The markers: SQLite reads them with json_extract from a model_config
--     that json_valid accepts (flags 10: JSON5 text or JSONB). PostgreSQL
--     15 has no JSON test that cannot fail, so hermes_json_or_null(text)
--     (a plpgsql function of the schema) casts to jsonb, NULL where the
--     cast fails, and ->> reads the key (NULL for a JSON null, as
--     json_extract gives). It takes strict JSON only: a model_config in
--     JSON5 (unquoted keys, comments, trailing commas) or with a \u0000
--     escape carries no marker here, and of duplicate keys jsonb keeps
--     the last where json_extract reads the first.
--   - Flags bound as INTEGER (include_children, by_last_active,
--     include_archived) are tested with <> 0: PostgreSQL has no integer
--     truth value.
--   - Text is ordered COLLATE "C" (bytes, as SQLite's BINARY) whatever the
--     database's collation, and NULLs are placed where SQLite places them
--     (first ascending, last descending) where a key can be NULL.
--   - Numbers are cast to bigint and double precision (PostgreSQL's
--     INTEGER and REAL are 32-bit), so that the Go types are db/'s.

-- SessionListRich is list_sessions_rich newest first (by start) before its
-- compression projection: each row with the raw preview (the first user
-- message's first 63 characters, newlines as spaces, Go strips and cuts it
-- to 60) and last_active (newest message, else the start). Neither looks at
-- messages.active: rewound and compacted rows count, as upstream. Ties on
-- started_at are broken by id so pages are stable.
-- PostgreSQL: the filter as the file header says, E'\n' and E'\r' for
-- SQLite's X'0A' and X'0D' (blobs that REPLACE reads as text), and limit
-- and offset in sqlc.arg form (they are keywords for the @ form).
-- name: SessionListRich :many
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT substr(replace(replace(hermes_content(m.content), E'\n', ' '), E'\r', ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS text) AS preview_raw,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS double precision) AS last_active
FROM sessions s
WHERE (@include_children::bigint <> 0
       OR ((s.parent_session_id IS NULL
            OR hermes_json_or_null(s.model_config) ->> '_branched_from' IS NOT NULL
            OR EXISTS (SELECT 1 FROM sessions p
                       WHERE p.id = s.parent_session_id AND p.end_reason = 'branched'
                         AND s.started_at >= p.ended_at))
           AND COALESCE(hermes_json_or_null(s.model_config) ->> '_delegate_from',
                        '__orphaned__') = '__orphaned__'))
  AND (sqlc.narg(source)::text IS NULL OR s.source = sqlc.narg(source)::text)
  AND (sqlc.narg(exclude_sources)::text IS NULL
       OR s.source NOT IN (SELECT jsonb_array_elements_text(sqlc.narg(exclude_sources)::text::jsonb)))
  AND (sqlc.narg(cwd_prefix)::text IS NULL
       OR s.cwd = sqlc.narg(cwd_prefix)::text
       OR translate(s.cwd, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
          LIKE translate(sqlc.narg(cwd_like_slash)::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE ''
       OR translate(s.cwd, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
          LIKE translate(sqlc.narg(cwd_like_backslash)::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE '')
  AND (@min_message_count::bigint <= 0 OR s.message_count >= @min_message_count::bigint)
  AND (sqlc.narg(archived)::bigint IS NULL OR s.archived = sqlc.narg(archived)::bigint)
ORDER BY s.started_at DESC, s.id COLLATE "C" DESC
LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1) OFFSET GREATEST(sqlc.arg('offset')::bigint, 0);

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
-- ORDER BY), 0 orders by start and id only, as SessionListRich. id_needle
-- keeps a row when its own id or any id in its chain contains the needle,
-- search_needle when any title or id in the chain does, or compact_needle
-- occurs in a title with '-', '_', '.' and ' ' taken out. Needles arrive
-- lowercased (Python's str.lower), and each is matched against
-- LOWER(text), SQLite's ASCII-only lowercasing, with instr(): upstream's
-- LIKE '%needle%' ESCAPE '\' on the same two strings finds exactly the same
-- rows (its case folding is ASCII-only too, and the needle holds no ASCII
-- capitals), without escaping and without LIKE's 50,000-byte pattern limit.
--
-- The CTE is UNION, not upstream's UNION ALL: on a parent cycle written by
-- hand UNION ALL never ends, with UNION every (root_id, cur_id) pair comes
-- once, which changes nothing where there is no cycle (a session has one
-- parent, so no pair is reached twice).
--
-- PostgreSQL: sessions have no rowid, so row_id is the session id (the
-- text primary key) and SessionRichRowsByRowID joins on it: the store only
-- hands the values back as a JSON array, in this query's order. LOWER is
-- translate() over A-Z (PostgreSQL's lower() folds every letter), instr()
-- is strpos() (both count characters, both find '' at 1), and MAX of a
-- truth value is bool_or. db/ types every parameter and row_id as
-- interface{} (sqlc's SQLite engine types nothing in this statement), so
-- this twin must too. PostgreSQL fixes a parameter's type at its first use
-- and reads the WITH first, while sqlc takes a parameter's Go type from its
-- first use in the outer SELECT: so args and the filter type every
-- parameter inside the WITH, the outer WHERE names all fourteen first, in
-- db/'s order, inside num_nulls (VARIADIC "any", which sqlc leaves
-- untyped, and always >= 0, so that conjunct is always true), and row_id
-- is an array subscript, which sqlc leaves untyped too.
-- name: SessionListRichChain :many
WITH RECURSIVE args(by_last_active, row_limit, row_offset) AS (
    SELECT CAST(sqlc.arg(by_last_active) AS bigint), CAST(sqlc.arg('limit') AS bigint), CAST(sqlc.arg('offset') AS bigint)
),
chain(root_id, cur_id) AS (
    SELECT s.id, s.id FROM sessions s
    WHERE (@include_children::bigint <> 0
           OR ((s.parent_session_id IS NULL
                OR hermes_json_or_null(s.model_config) ->> '_branched_from' IS NOT NULL
                OR EXISTS (SELECT 1 FROM sessions p
                           WHERE p.id = s.parent_session_id AND p.end_reason = 'branched'
                             AND s.started_at >= p.ended_at))
               AND COALESCE(hermes_json_or_null(s.model_config) ->> '_delegate_from',
                            '__orphaned__') = '__orphaned__'))
      AND (sqlc.narg(source)::text IS NULL OR s.source = sqlc.narg(source)::text)
      AND (sqlc.narg(exclude_sources)::text IS NULL
           OR s.source NOT IN (SELECT jsonb_array_elements_text(sqlc.narg(exclude_sources)::text::jsonb)))
      AND (sqlc.narg(cwd_prefix)::text IS NULL
           OR s.cwd = sqlc.narg(cwd_prefix)::text
           OR translate(s.cwd, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
              LIKE translate(sqlc.narg(cwd_like_slash)::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE ''
           OR translate(s.cwd, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
              LIKE translate(sqlc.narg(cwd_like_backslash)::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE '')
      AND (@min_message_count::bigint <= 0 OR s.message_count >= @min_message_count::bigint)
      AND (sqlc.narg(archived)::bigint IS NULL OR s.archived = sqlc.narg(archived)::bigint)
    UNION
    SELECT c.root_id, child.id
    FROM chain c
    JOIN sessions parent ON parent.id = c.cur_id
    JOIN sessions child ON child.parent_session_id = c.cur_id
    WHERE parent.end_reason = 'compression'
      AND hermes_json_or_null(child.model_config) ->> '_branched_from' IS NULL
      AND hermes_json_or_null(child.model_config) ->> '_delegate_from' IS NULL
      AND COALESCE(child.source, '') != 'tool'
),
cm AS (
    SELECT chain.root_id,
        MAX(COALESCE(
            (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = chain.cur_id),
            cs.started_at
        )) AS effective_last_active,
        bool_or(strpos(translate(chain.cur_id, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), CAST(sqlc.narg(id_needle) AS text)) > 0) AS id_hit,
        bool_or(strpos(translate(COALESCE(cs.title, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), CAST(sqlc.narg(search_needle) AS text)) > 0
            OR strpos(translate(chain.cur_id, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), CAST(sqlc.narg(search_needle) AS text)) > 0
            OR strpos(replace(replace(replace(replace(translate(COALESCE(cs.title, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'),
                   '-', ''), '_', ''), '.', ''), ' ', ''), CAST(sqlc.narg(compact_needle) AS text)) > 0) AS search_hit
    FROM chain JOIN sessions cs ON cs.id = chain.cur_id
    GROUP BY chain.root_id
)
SELECT (ARRAY[s.id])[1] AS row_id
FROM cm JOIN sessions s ON s.id = cm.root_id CROSS JOIN args
WHERE num_nulls(sqlc.narg(id_needle), sqlc.narg(search_needle), sqlc.arg('offset'), sqlc.arg('limit'),
        sqlc.arg(include_children), sqlc.narg(source), sqlc.narg(exclude_sources), sqlc.narg(cwd_prefix),
        sqlc.narg(cwd_like_slash), sqlc.narg(cwd_like_backslash), sqlc.arg(min_message_count),
        sqlc.narg(archived), sqlc.narg(compact_needle), sqlc.arg(by_last_active)) >= 0
  AND (sqlc.narg(id_needle) IS NULL OR cm.id_hit)
  AND (sqlc.narg(search_needle) IS NULL OR cm.search_hit)
ORDER BY CASE WHEN args.by_last_active <> 0 THEN COALESCE(cm.effective_last_active, s.started_at) END DESC NULLS LAST,
    s.started_at DESC, s.id COLLATE "C" DESC
LIMIT NULLIF(GREATEST((SELECT row_limit FROM args), -1), -1) OFFSET GREATEST((SELECT row_offset FROM args), 0);

-- SessionRichRowsByRowID reads the sessions whose rowids a JSON array
-- lists, in the array's order, shaped as SessionListRich shapes a row.
-- PostgreSQL: the array holds session ids (SessionListRichChain's row_id
-- here), read by jsonb_array_elements_text WITH ORDINALITY for json_each
-- and its key. row_ids stays interface{} as in db/: the WITH types it as
-- text for PostgreSQL, and the outer WHERE (true whenever there is a row)
-- names it first for sqlc, as in SessionListRichChain.
-- name: SessionRichRowsByRowID :many
WITH j(value, ord) AS (
    SELECT e.value, e.ord
    FROM jsonb_array_elements_text(CAST(CAST(sqlc.arg(row_ids) AS text) AS jsonb)) WITH ORDINALITY AS e(value, ord)
)
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT substr(replace(replace(hermes_content(m.content), E'\n', ' '), E'\r', ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS text) AS preview_raw,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS double precision) AS last_active
FROM j
JOIN sessions s ON s.id = j.value
WHERE sqlc.arg(row_ids) IS NOT NULL
ORDER BY j.ord;

-- SessionRichRow is one session shaped as SessionListRich shapes a row, the
-- projection reads a compression tip through it. It repeats the two
-- subqueries rather than adding an optional id filter to SessionListRich:
-- "(? IS NULL OR s.id = ?)" would keep SQLite from using the primary key.
-- PostgreSQL: E'\n' and E'\r' for X'0A' and X'0D', as SessionListRich.
-- name: SessionRichRow :one
SELECT sqlc.embed(s),
    CAST(COALESCE(
        (SELECT substr(replace(replace(hermes_content(m.content), E'\n', ' '), E'\r', ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    ) AS text) AS preview_raw,
    CAST(COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    ) AS double precision) AS last_active
FROM sessions s
WHERE s.id = @id;

-- SessionCountListed is session_count: the rows the listing filter admits
-- (include_children 1 unless the caller asked to exclude children).
-- PostgreSQL: the filter as the file header says.
-- name: SessionCountListed :one
SELECT COUNT(*) FROM sessions s
WHERE (@include_children::bigint <> 0
       OR ((s.parent_session_id IS NULL
            OR hermes_json_or_null(s.model_config) ->> '_branched_from' IS NOT NULL
            OR EXISTS (SELECT 1 FROM sessions p
                       WHERE p.id = s.parent_session_id AND p.end_reason = 'branched'
                         AND s.started_at >= p.ended_at))
           AND COALESCE(hermes_json_or_null(s.model_config) ->> '_delegate_from',
                        '__orphaned__') = '__orphaned__'))
  AND (sqlc.narg(source)::text IS NULL OR s.source = sqlc.narg(source)::text)
  AND (sqlc.narg(exclude_sources)::text IS NULL
       OR s.source NOT IN (SELECT jsonb_array_elements_text(sqlc.narg(exclude_sources)::text::jsonb)))
  AND (sqlc.narg(cwd_prefix)::text IS NULL
       OR s.cwd = sqlc.narg(cwd_prefix)::text
       OR translate(s.cwd, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
          LIKE translate(sqlc.narg(cwd_like_slash)::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE ''
       OR translate(s.cwd, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
          LIKE translate(sqlc.narg(cwd_like_backslash)::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE '')
  AND (@min_message_count::bigint <= 0 OR s.message_count >= @min_message_count::bigint)
  AND (sqlc.narg(archived)::bigint IS NULL OR s.archived = sqlc.narg(archived)::bigint);

-- SessionDistinctCwds is distinct_session_cwds: every cwd that is not NULL
-- and not empty after TRIM (SQLite's TRIM takes only spaces, as upstream
-- sends it), with how many sessions ran there (children and branches
-- included) and the newest end or start among them, archived rows only
-- when include_archived is set. Upstream has no ORDER BY (its rows come in
-- GROUP BY order, which SQLite happens to make cwd order), the store orders
-- by cwd so the order is a promise.
-- PostgreSQL: trim() takes only spaces too, the flag is tested with <> 0,
-- and cwd is ordered COLLATE "C" (SQLite's BINARY order).
-- name: SessionDistinctCwds :many
SELECT CAST(cwd AS text) AS cwd,
    COUNT(*) AS sessions,
    CAST(COALESCE(MAX(COALESCE(ended_at, started_at, 0)), 0) AS double precision) AS last_active
FROM sessions
WHERE cwd IS NOT NULL AND trim(cwd) != ''
  AND (CAST(@include_archived AS bigint) <> 0 OR archived = 0)
GROUP BY cwd
ORDER BY cwd COLLATE "C";
