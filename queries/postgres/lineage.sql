-- The PostgreSQL twins of queries/sqlite/lineage.sql. The recursive CTEs
-- run on PostgreSQL as written for SQLite, with these changes (each query
-- says which it has, and why):
--   - depth is cast to bigint (PostgreSQL's INTEGER is 32-bit, db/'s depth
--     is an int64), has_messages is CASE WHEN EXISTS: PostgreSQL casts no
--     boolean to bigint.
--   - the markers are read through hermes_json_or_null(text) (a plpgsql
--     function of the schema: the jsonb of a text, NULL where the cast
--     fails, as SQLite's json_valid test gives NULL) and ->> (NULL for a
--     JSON null, as json_extract). It takes strict JSON only: a
--     model_config in JSON5, or with a \u0000 escape, carries no marker
--     here, where SQLite's json_valid(x, 10) accepts JSON5.
--   - ids are ordered COLLATE "C", bytes, as SQLite's BINARY, whatever the
--     database's collation.

-- SessionAncestors walks parent_session_id from a session to its root:
-- depth 0 is the session itself, then its parent, and so on. The walk stops
-- after 100 hops (the original's bound for lineage walks), so a cycle written
-- by hand cannot loop forever, the caller stops at the first repeated id.
-- PostgreSQL: depth cast to bigint.
-- name: SessionAncestors :many
WITH RECURSIVE lineage(id, depth) AS (
    SELECT s.id, 0 FROM sessions s WHERE s.id = @id
    UNION ALL
    SELECT s.parent_session_id, l.depth + 1
    FROM lineage l JOIN sessions s ON s.id = l.id
    WHERE s.parent_session_id IS NOT NULL AND l.depth < 100
)
SELECT s.id, s.title, s.started_at, s.parent_session_id, CAST(l.depth AS bigint) AS depth
FROM lineage l JOIN sessions s ON s.id = l.id
ORDER BY l.depth;

-- SessionDescendants returns a session and every session below it:
-- depth 0 is the session itself, then its children (oldest first), their
-- children, and so on, at most 100 levels down. CROSS JOIN keeps the
-- walk's rows the outer loop, each looked up by primary key: with a plain
-- JOIN, and no statistics, SQLite expects the CTE to be large and reads
-- the whole primary-key index of sessions against an automatic index on
-- the walk instead. The rows are the same (an inner join either way).
-- PostgreSQL: a plain JOIN (PostgreSQL takes no ON after CROSS JOIN, and
-- its planner needs no such hint), depth cast to bigint, id ordered
-- COLLATE "C".
-- name: SessionDescendants :many
WITH RECURSIVE descendants(id, depth) AS (
    SELECT s.id, 0 FROM sessions s WHERE s.id = @id
    UNION ALL
    SELECT s.id, d.depth + 1
    FROM descendants d JOIN sessions s ON s.parent_session_id = d.id
    WHERE d.depth < 100
)
SELECT s.id, s.title, s.started_at, s.parent_session_id, CAST(d.depth AS bigint) AS depth
FROM descendants d JOIN sessions s ON s.id = d.id
ORDER BY d.depth, s.started_at, s.id COLLATE "C";

-- SessionCompressionWalk is get_compression_tip's walk: from a session that
-- ended 'compression', step to one of its continuation children, and so on,
-- at most 100 steps. A continuation child is any child of that parent
-- except one carrying the _branched_from or _delegate_from marker or with
-- source 'tool', when there are several, the one that itself ended
-- 'compression' wins, then a live one (ended_at NULL), then the one with the
-- newest activity (newest message, else start), then the latest start, then
-- the greatest id. Unlike v11 there is no started_at >= ended_at test: a
-- real continuation may be written before its parent's end. The rows are
-- the walk in order, depth 0 being the session itself (an unknown id too),
-- the store stops at the first repeated id (a cycle written by hand).
-- PostgreSQL: the markers through hermes_json_or_null, the id tie broken
-- COLLATE "C".
-- name: SessionCompressionWalk :many
WITH RECURSIVE walk(id, depth) AS (
    SELECT CAST(@id AS text) COLLATE "C", 0
    UNION ALL
    SELECT (
        SELECT child.id
        FROM sessions parent
        JOIN sessions child ON child.parent_session_id = parent.id
        WHERE parent.id = walk.id
          AND parent.end_reason = 'compression'
          AND hermes_json_or_null(child.model_config) ->> '_branched_from' IS NULL
          AND hermes_json_or_null(child.model_config) ->> '_delegate_from' IS NULL
          AND COALESCE(child.source, '') != 'tool'
        ORDER BY
          CASE
            WHEN child.end_reason = 'compression' THEN 0
            WHEN child.ended_at IS NULL THEN 1
            ELSE 2
          END,
          COALESCE(
            (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = child.id),
            child.started_at
          ) DESC,
          child.started_at DESC,
          child.id COLLATE "C" DESC
        LIMIT 1
    ), walk.depth + 1
    FROM walk
    WHERE walk.id IS NOT NULL AND walk.depth < 100
)
SELECT CAST(id AS text) AS id FROM walk WHERE id IS NOT NULL
ORDER BY depth;

-- SessionCompressionAncestors walks up a compression chain: the session
-- (when it exists), then its parent while the step is a compression edge of
-- SessionCompressionWalk (the parent ended 'compression' and the child
-- carries neither marker and is not a 'tool' session), at most 100 steps.
-- The store stops at the first repeated id.
-- PostgreSQL: the markers through hermes_json_or_null.
-- name: SessionCompressionAncestors :many
WITH RECURSIVE up(id, depth) AS (
    SELECT s.id, 0 FROM sessions s WHERE s.id = @id
    UNION ALL
    SELECT parent.id, up.depth + 1
    FROM up
    JOIN sessions child ON child.id = up.id
    JOIN sessions parent ON parent.id = child.parent_session_id
    WHERE parent.end_reason = 'compression'
      AND hermes_json_or_null(child.model_config) ->> '_branched_from' IS NULL
      AND hermes_json_or_null(child.model_config) ->> '_delegate_from' IS NULL
      AND COALESCE(child.source, '') != 'tool'
      AND up.depth < 100
)
SELECT CAST(id AS text) AS id FROM up ORDER BY depth;

-- SessionResumeWalk lists the path resolve_resume_session_id takes from a
-- session (the caller passes its compression tip): the session, then
-- repeatedly its most recently started child (ties: greatest id), 31 steps
-- at most (upstream looks at 32 sessions), each with whether it holds any
-- message (active or not). Children carrying the _branched_from or
-- _delegate_from marker and 'tool' sessions are never stepped into, as
-- upstream, nor, unlike upstream, is a /branch child from before the marker
-- existed (its parent ended 'branched' before it started: the listing's own
-- test for a branch). The store picks the deepest step with messages and
-- stops at a repeated id (a cycle).
-- PostgreSQL: the markers through hermes_json_or_null, the id tie broken
-- COLLATE "C", has_messages as CASE WHEN EXISTS (no boolean-to-bigint
-- cast).
-- name: SessionResumeWalk :many
WITH RECURSIVE walk(id, depth) AS (
    SELECT CAST(@id AS text) COLLATE "C", 0
    UNION ALL
    SELECT (
        SELECT c.id FROM sessions c
        WHERE c.parent_session_id = walk.id
          AND hermes_json_or_null(c.model_config) ->> '_branched_from' IS NULL
          AND hermes_json_or_null(c.model_config) ->> '_delegate_from' IS NULL
          AND COALESCE(c.source, '') != 'tool'
          AND NOT EXISTS (SELECT 1 FROM sessions p
                          WHERE p.id = c.parent_session_id AND p.end_reason = 'branched'
                            AND c.started_at >= p.ended_at)
        ORDER BY c.started_at DESC, c.id COLLATE "C" DESC
        LIMIT 1
    ), walk.depth + 1
    FROM walk
    WHERE walk.id IS NOT NULL AND walk.depth < 31
)
SELECT CAST(walk.id AS text) AS id,
    CAST(CASE WHEN EXISTS (SELECT 1 FROM messages m WHERE m.session_id = walk.id) THEN 1 ELSE 0 END AS bigint) AS has_messages
FROM walk WHERE walk.id IS NOT NULL
ORDER BY walk.depth;
