-- SessionCronRuns is list_cron_job_runs: the run sessions of one cron job,
-- newest first (then by id), shaped as SessionListRich shapes a row (preview
-- and last_active over every message). A run's id is
-- cron_<job_id>_<timestamp>: the caller binds the half-open range
-- [cron_<job_id>_, cron_<job_id>`) so the (source, id) index serves it
-- (idx_sessions_source_id) and no other job's ids fall inside, where a
-- substring LIKE would also match cron_x<job_id>_... and cron_<job_id>2_...
-- No listing filter applies: archived runs and children are listed too, as
-- upstream.
-- PostgreSQL: the preview reads the content through hermes_content (see
-- listing.sql). The range and the id order are COLLATE "C", the byte order
-- of SQLite's BINARY collation the range is built for (under a linguistic
-- collation the backquote bound would not follow the underscore), so the
-- index narrows the source only while the column's collation is not "C".
-- The preview replaces chr(10) and chr(13) where SQLite wrote X'0A' and
-- X'0D', and substr counts code points on both. LIMIT and OFFSET are cast
-- to bigint for int64 parameters, as SQLite's are, and a negative LIMIT
-- (every run, which the store relies on) or OFFSET (0) mean here what they
-- mean on SQLite, where PostgreSQL would fail: see SessionBrowse.
-- name: SessionCronRuns :many
SELECT sqlc.embed(s),
    COALESCE(
        (SELECT substr(replace(replace(hermes_content(m.content), chr(10), ' '), chr(13), ' '), 1, 63)
         FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
         ORDER BY m.timestamp, m.id LIMIT 1),
        ''
    )::text AS preview_raw,
    COALESCE(
        (SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id),
        s.started_at
    )::double precision AS last_active
FROM sessions s
WHERE s.source = 'cron' AND s.id COLLATE "C" >= @id_from::text AND s.id COLLATE "C" < @id_to::text
ORDER BY s.started_at DESC, s.id COLLATE "C" DESC
LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1) OFFSET GREATEST(sqlc.arg('offset')::bigint, 0);
