-- HealthCounterMismatches lists the sessions whose stored counters disagree
-- with their message rows, each counter CAST as the store reads it (a
-- counter of the wrong storage class is HealthBadSessionValues' finding,
-- not a mismatch). The tool-call count follows append_message: 0
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
WHERE CAST(COALESCE(s.message_count, 0) AS INTEGER) <> COALESCE(m.n, 0)
   OR CAST(COALESCE(s.tool_call_count, 0) AS INTEGER) <> COALESCE(m.calls, 0)
ORDER BY s.id;

-- HealthOrphanMessages counts messages whose session row is missing (a
-- file written with foreign keys off).
-- name: HealthOrphanMessages :one
SELECT COUNT(*) FROM messages m
WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = m.session_id);

-- HealthBadSessionValues lists the sessions whose numeric columns hold a
-- value of another storage class than the column's (a REAL, TEXT or BLOB
-- in an INTEGER column; TEXT or a BLOB in a REAL one; NULL is no finding), with
-- typeof() of each numeric column; the store names the columns that are
-- off. At most 101 rows, by id: the store lists 100 and says there are
-- more.
-- name: HealthBadSessionValues :many
SELECT id,
    typeof(started_at) AS started_at, typeof(ended_at) AS ended_at,
    typeof(message_count) AS message_count, typeof(tool_call_count) AS tool_call_count,
    typeof(input_tokens) AS input_tokens, typeof(output_tokens) AS output_tokens,
    typeof(cache_read_tokens) AS cache_read_tokens, typeof(cache_write_tokens) AS cache_write_tokens,
    typeof(reasoning_tokens) AS reasoning_tokens,
    typeof(estimated_cost_usd) AS estimated_cost_usd, typeof(actual_cost_usd) AS actual_cost_usd,
    typeof(api_call_count) AS api_call_count
FROM sessions
WHERE (started_at IS NOT NULL AND typeof(started_at) <> 'real') OR (ended_at IS NOT NULL AND typeof(ended_at) <> 'real')
   OR (message_count IS NOT NULL AND typeof(message_count) <> 'integer') OR (tool_call_count IS NOT NULL AND typeof(tool_call_count) <> 'integer')
   OR (input_tokens IS NOT NULL AND typeof(input_tokens) <> 'integer') OR (output_tokens IS NOT NULL AND typeof(output_tokens) <> 'integer')
   OR (cache_read_tokens IS NOT NULL AND typeof(cache_read_tokens) <> 'integer') OR (cache_write_tokens IS NOT NULL AND typeof(cache_write_tokens) <> 'integer')
   OR (reasoning_tokens IS NOT NULL AND typeof(reasoning_tokens) <> 'integer')
   OR (estimated_cost_usd IS NOT NULL AND typeof(estimated_cost_usd) <> 'real') OR (actual_cost_usd IS NOT NULL AND typeof(actual_cost_usd) <> 'real')
   OR (api_call_count IS NOT NULL AND typeof(api_call_count) <> 'integer')
ORDER BY id
LIMIT 101;

-- HealthBadMessageValues is HealthBadSessionValues for the messages'
-- numeric columns (id is the rowid: always an integer).
-- name: HealthBadMessageValues :many
SELECT id, typeof(timestamp) AS timestamp, typeof(token_count) AS token_count
FROM messages
WHERE (timestamp IS NOT NULL AND typeof(timestamp) <> 'real') OR (token_count IS NOT NULL AND typeof(token_count) <> 'integer')
ORDER BY id
LIMIT 101;
