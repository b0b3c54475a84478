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
-- name: SessionLatestTitleVariant :one
SELECT id FROM sessions
WHERE rowid IN (SELECT rowid FROM sessions
                WHERE title IS NOT NULL AND like(sqlc.narg(pattern), title, char(92)))
ORDER BY started_at DESC, rowid LIMIT 1;

-- SessionLineageTitles lists the titles of a lineage: the base title itself
-- and every 'base #...' variant (pattern LIKE-escaped), in no order.
-- title IS NOT NULL changes no row (NULL matches neither test) but lets
-- SQLite read the titles from the partial index idx_sessions_title_unique
-- alone: without it the statement reads every session row, and title lies
-- after system_prompt, so each read follows that prompt's overflow pages.
-- A case-insensitive LIKE with ESCAPE cannot narrow the index to a range,
-- so the index is still read whole, but it holds only titles.
-- name: SessionLineageTitles :many
SELECT CAST(title AS TEXT) AS title FROM sessions
WHERE title IS NOT NULL AND (title = @base OR (title LIKE @pattern ESCAPE char(92)));

-- SessionIsCompressionAncestor is upstream's _is_compression_ancestor: is
-- ancestor reached from descendant by walking parent links, each step from
-- a child whose parent ended 'compression' (upstream's edge here: no marker
-- or start-time test)? UNION stops a cycle written by hand.
-- name: SessionIsCompressionAncestor :one
WITH RECURSIVE ancestors(id) AS (
    SELECT CAST(@descendant AS TEXT)
    UNION
    SELECT parent.id
    FROM ancestors a
    JOIN sessions child ON child.id = a.id
    JOIN sessions parent ON parent.id = child.parent_session_id
    WHERE EXISTS (SELECT 1 FROM sessions p
                  WHERE p.id = child.parent_session_id AND p.end_reason = 'compression')
)
SELECT CAST(EXISTS (SELECT 1 FROM ancestors
                    WHERE id = @ancestor AND id != @descendant) AS INTEGER) AS found;
