-- SessionTitleOwner finds another session already holding a title (titles
-- are unique, case-sensitively, among non-NULL values).
-- name: SessionTitleOwner :one
SELECT id FROM sessions WHERE title = @title AND id != @id LIMIT 1;

-- SessionSetTitle sets or (NULL) clears a session's title.
-- name: SessionSetTitle :execrows
UPDATE sessions SET title = sqlc.narg(title) WHERE id = @id;

-- SessionGetTitle reads one session's title.
-- name: SessionGetTitle :one
SELECT title FROM sessions WHERE id = @id;

-- SessionGetByTitle finds the session with exactly this title (the unique
-- index makes it at most one).
-- name: SessionGetByTitle :one
SELECT * FROM sessions WHERE title = @title LIMIT 1;

-- SessionLatestTitleVariant finds the most recently started session titled
-- "<base> #<anything>": the pattern arrives LIKE-escaped as 'base #%'. LIKE
-- is ASCII case-insensitive and '#%' accepts any suffix, exactly as the
-- original's resolve_session_by_title.
--
-- Upstream's text walks idx_sessions_started and reads each session's
-- title until one matches, all of them when none does, and title lies
-- after system_prompt, so each read follows that prompt's overflow pages.
-- Here the matches are found in the partial title index alone (title IS
-- NOT NULL changes no row: NULL never matches) and only they are read.
-- The rowid term is the order that walk gives rows started at the same
-- time (index entries of equal keys run by rowid), so a tie picks the
-- same session. like(p, t, e) is what t LIKE p ESCAPE e calls, written as
-- the function because sqlc cannot parse ESCAPE inside a subquery.
-- PostgreSQL: LIKE is case-sensitive here, so both sides are lowered by
-- translate over A-Z alone, which is SQLite's ASCII-only case folding
-- (lower or ILIKE would fold every script), with ESCAPE chr(92), the
-- backslash. There is no rowid: rows started at the same time are taken by
-- id (COLLATE "C", SQLite's byte order) where SQLite took the earliest
-- inserted, so only such a tie may pick another session.
-- name: SessionLatestTitleVariant :one
SELECT id FROM sessions
WHERE title IS NOT NULL
  AND translate(title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
      LIKE translate(sqlc.narg(pattern)::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE chr(92)
ORDER BY started_at DESC, id COLLATE "C" LIMIT 1;

-- SessionLineageTitles lists the titles of a lineage: the base title itself
-- and every 'base #...' variant (pattern LIKE-escaped), in no order.
-- title IS NOT NULL changes no row (NULL matches neither test) but lets
-- SQLite read the titles from the partial index idx_sessions_title_unique
-- alone: without it the statement reads every session row, and title lies
-- after system_prompt, so each read follows that prompt's overflow pages.
-- A case-insensitive LIKE with ESCAPE cannot narrow the index to a range,
-- so the index is still read whole, but it holds only titles.
-- PostgreSQL: the LIKE is made ASCII case-insensitive as SQLite's is, by
-- translate over A-Z on both sides (lower would fold every script), with
-- ESCAPE chr(92), the backslash. The titles come in no order on both.
-- name: SessionLineageTitles :many
SELECT title::text AS title FROM sessions
WHERE title IS NOT NULL AND (title = sqlc.narg(base)::text OR (
    translate(title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
    LIKE translate(sqlc.narg(pattern)::text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ESCAPE chr(92)));

-- SessionIsCompressionAncestor is upstream's _is_compression_ancestor: is
-- ancestor reached from descendant by walking parent links, each step from
-- a child whose parent ended 'compression' (upstream's edge here: no marker
-- or start-time test)? UNION stops a cycle written by hand.
-- PostgreSQL: the same walk, with each reached parent marked hit when it is
-- the ancestor and not the descendant (sqlc cannot type a parameter
-- compared with a recursive CTE's column outside it). The seed is the
-- descendant's row, not its bare id: a step needs that row anyway. The
-- parameters go through NULLIF(x, NULL) so that sqlc leaves them
-- interface{} as SQLite's are (PostgreSQL types them text), the ancestor
-- first for the same field order, and a NULL ancestor finds nothing as
-- id = NULL finds nothing on SQLite.
-- name: SessionIsCompressionAncestor :one
WITH RECURSIVE ancestors(aid, hit) AS (
    SELECT s.id, false FROM sessions s
    WHERE NULLIF(@ancestor, NULL) IS NOT NULL AND s.id = NULLIF(@descendant, NULL)
    UNION
    SELECT parent.id, parent.id = NULLIF(@ancestor, NULL) AND parent.id <> NULLIF(@descendant, NULL)
    FROM ancestors a
    JOIN sessions child ON child.id = a.aid
    JOIN sessions parent ON parent.id = child.parent_session_id
    WHERE EXISTS (SELECT 1 FROM sessions p
                  WHERE p.id = child.parent_session_id AND p.end_reason = 'compression')
)
SELECT (COUNT(*) FILTER (WHERE ancestors.hit) > 0)::int::bigint AS found FROM ancestors;
