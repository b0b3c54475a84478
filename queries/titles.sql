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
-- name: SessionLatestTitleVariant :one
SELECT id FROM sessions WHERE title LIKE @pattern ESCAPE char(92)
ORDER BY started_at DESC LIMIT 1;

-- SessionLineageTitles lists the titles of a lineage: the base title itself
-- and every 'base #...' variant (pattern LIKE-escaped).
-- name: SessionLineageTitles :many
SELECT CAST(title AS TEXT) AS title FROM sessions
WHERE title = @base OR (title LIKE @pattern ESCAPE char(92));
