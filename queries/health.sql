-- HealthCounterMismatches lists the sessions whose stored counters disagree
-- with their message rows. The tool-call count follows append_message: 0
-- for NULL tool_calls, the length of a JSON array, else 1 (an object counts
-- as one call).
-- name: HealthCounterMismatches :many
SELECT s.id,
    CAST(COALESCE(s.message_count, 0) AS INTEGER) AS stored_messages,
    CAST(COALESCE(m.n, 0) AS INTEGER) AS actual_messages,
    CAST(COALESCE(s.tool_call_count, 0) AS INTEGER) AS stored_calls,
    CAST(COALESCE(m.calls, 0) AS INTEGER) AS actual_calls
FROM sessions s
LEFT JOIN (
    SELECT session_id, COUNT(*) AS n,
        SUM(CASE
            WHEN tool_calls IS NULL THEN 0
            WHEN json_valid(tool_calls) AND json_type(tool_calls) = 'array' THEN json_array_length(tool_calls)
            ELSE 1
        END) AS calls
    FROM messages GROUP BY session_id
) m ON m.session_id = s.id
WHERE COALESCE(s.message_count, 0) <> COALESCE(m.n, 0)
   OR COALESCE(s.tool_call_count, 0) <> COALESCE(m.calls, 0)
ORDER BY s.id;

-- HealthOrphanMessages counts messages whose session row is missing (a
-- file written with foreign keys off).
-- name: HealthOrphanMessages :one
SELECT COUNT(*) FROM messages m
WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = m.session_id);
