-- HealthCounterMismatches lists the sessions whose stored counters no
-- sequence of upstream's (or this store's) writes could have left beside
-- their message rows. Schema v21 keeps no exact relation between
-- message_count and the rows: append counts one row; ReplaceMessages,
-- ReplaceActiveMessages and ArchiveAndCompact (upstream's replace_messages
-- and archive_and_compact) set the counters to the rows they insert while
-- rewound and compaction-archived rows stay; rewind and restore_rewound
-- change no counter (upstream-v21.md trap 7). What does hold: the counted
-- rows are the session's newest rows written since the last replace or
-- compaction, which compacted none of them (compaction archives only older
-- rows). So message_count must be some k from 0 to n, n being the rows
-- with compacted = 0 newer than the session's newest compacted row, and
-- tool_call_count the calls of the k newest of those. (A NULL
-- message_count counts nothing any more, NULL + 1 being NULL: it must be n,
-- as it is for a file whose every row was counted.) actual_messages is n
-- when the stored count is NULL, negative or above n, else the stored
-- count; actual_calls is the calls of that many newest rows. Each counter
-- is CAST as the store reads it (a counter of the wrong storage class is
-- HealthBadSessionValues' finding, not a mismatch). A row's tool calls
-- follow append_message: 0 for NULL tool_calls, the length of a JSON
-- array, else 1 (an object counts as one call).
-- name: HealthCounterMismatches :many
WITH last_compacted AS (
    SELECT session_id, MAX(id) AS id FROM messages WHERE compacted = 1 GROUP BY session_id
),
countable AS (
    SELECT m.session_id,
        ROW_NUMBER() OVER (PARTITION BY m.session_id ORDER BY m.id DESC ROWS UNBOUNDED PRECEDING) AS k,
        SUM(CASE
            WHEN m.tool_calls IS NULL THEN 0
            WHEN json_valid(m.tool_calls) AND json_type(m.tool_calls) = 'array' THEN json_array_length(m.tool_calls)
            ELSE 1
        END) OVER (PARTITION BY m.session_id ORDER BY m.id DESC ROWS UNBOUNDED PRECEDING) AS calls
    FROM messages m
    LEFT JOIN last_compacted c ON c.session_id = m.session_id
    WHERE m.compacted = 0 AND (c.id IS NULL OR m.id > c.id)
),
sized AS (
    SELECT session_id, MAX(k) AS n FROM countable GROUP BY session_id
),
judged AS (
    SELECT s.id,
        CAST(s.message_count AS INTEGER) AS stored_count,
        CAST(COALESCE(s.tool_call_count, 0) AS INTEGER) AS stored_calls,
        COALESCE(z.n, 0) AS n,
        CASE
            WHEN s.message_count IS NULL OR CAST(s.message_count AS INTEGER) < 0
                OR CAST(s.message_count AS INTEGER) > COALESCE(z.n, 0) THEN COALESCE(z.n, 0)
            ELSE CAST(s.message_count AS INTEGER)
        END AS k
    FROM sessions s
    LEFT JOIN sized z ON z.session_id = s.id
)
SELECT j.id,
    CAST(COALESCE(j.stored_count, 0) AS INTEGER) AS stored_messages,
    CAST(j.k AS INTEGER) AS actual_messages,
    CAST(j.stored_calls AS INTEGER) AS stored_calls,
    CAST(COALESCE(c.calls, 0) AS INTEGER) AS actual_calls
FROM judged j
LEFT JOIN countable c ON c.session_id = j.id AND c.k = j.k
WHERE (j.stored_count IS NULL AND j.n > 0) OR j.stored_count < 0 OR j.stored_count > j.n
   OR j.stored_calls <> COALESCE(c.calls, 0)
ORDER BY j.id;

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

-- HealthHasNULText reports whether any message's indexed text (content,
-- tool_name, tool_calls) holds a NUL byte, as upstream's multimodal
-- content ("\x00json:[...]") does. SQLite 3.40 (the one Python ships, which
-- upstream runs on) trigram-indexes such text only up to the NUL, and a
-- newer SQLite (ours) reads past it, so an index one built fails the
-- other's integrity check. Check asks only when the trigram index fails
-- it; the scan stops at the first such row. The casts make instr() compare
-- bytes, whatever a value's storage class.
-- name: HealthHasNULText :one
SELECT EXISTS (
    SELECT 1 FROM messages
    WHERE instr(CAST(content AS BLOB), x'00') > 0
       OR instr(CAST(tool_name AS BLOB), x'00') > 0
       OR instr(CAST(tool_calls AS BLOB), x'00') > 0
) AS has_nul;
