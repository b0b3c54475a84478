-- SessionCronRuns is list_cron_job_runs: the run sessions of one cron job,
-- newest first (then by id), shaped as SessionListRich shapes a row (preview
-- and last_active over every message). A run's id is
-- cron_<job_id>_<timestamp>: the caller binds the half-open range
-- [cron_<job_id>_, cron_<job_id>`) so the (source, id) index serves it
-- (idx_sessions_source_id) and no other job's ids fall inside, where a
-- substring LIKE would also match cron_x<job_id>_... and cron_<job_id>2_...
-- No listing filter applies: archived runs and children are listed too, as
-- upstream.
-- name: SessionCronRuns :many
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
WHERE s.source = 'cron' AND s.id >= @id_from AND s.id < @id_to
ORDER BY s.started_at DESC, s.id DESC
LIMIT @limit OFFSET @offset;
