-- The PostgreSQL twins of queries/sqlite/health.sql. Two of them check
-- what only SQLite's dynamic typing and its trigram index can get wrong:
-- on PostgreSQL they keep db/'s Go shape and find nothing (see each).

-- HealthCounterMismatches lists the sessions whose stored counters no
-- sequence of upstream's (or this store's) writes could have left beside
-- their message rows. Schema v21 keeps no exact relation between
-- message_count and the rows: append counts one row, ReplaceMessages,
-- ReplaceActiveMessages and ArchiveAndCompact (upstream's replace_messages
-- and archive_and_compact) set the counters to the rows they insert while
-- rewound and compaction-archived rows stay, rewind and restore_rewound
-- change no counter (upstream-v21.md trap 7). What does hold: the counted
-- rows are the session's newest rows written since the last replace or
-- compaction, which compacted none of them (compaction archives only older
-- rows). So message_count must be some k from 0 to n, n being the rows
-- with compacted = 0 newer than the session's newest compacted row, and
-- tool_call_count the calls of the k newest of those. (A NULL
-- message_count counts nothing any more, NULL + 1 being NULL: it must be n,
-- as it is for a file whose every row was counted.) actual_messages is n
-- when the stored count is NULL, negative or above n, else the stored
-- count, actual_calls is the calls of that many newest rows. Each counter
-- is CAST as the store reads it (a counter of the wrong storage class is
-- HealthBadSessionValues' finding, not a mismatch). A row's tool calls
-- follow append_message: 0 for NULL tool_calls, the length of a JSON
-- array, else 1 (an object counts as one call).
-- PostgreSQL: the JSON test is hermes_json_or_null(text) (a plpgsql
-- function of the schema: the jsonb of a text, NULL where the cast fails)
-- with jsonb_typeof and jsonb_array_length, for json_valid, json_type and
-- json_array_length. Both take strict JSON, but jsonb refuses a \u0000
-- escape, an unpaired surrogate escape and a number past numeric's range,
-- which json_valid accepts (such an array counts 1 call here, its length
-- on SQLite), and takes nesting past json_valid's 1000 levels up to the
-- stack limit (such an array counts its length here, 1 on SQLite). The
-- casts are to bigint (the columns are bigint already), ids are ordered
-- COLLATE "C" (bytes, as SQLite's BINARY).
-- name: HealthCounterMismatches :many
WITH last_compacted AS (
    SELECT session_id, MAX(id) AS id FROM messages WHERE compacted = 1 GROUP BY session_id
),
countable AS (
    SELECT m.session_id,
        ROW_NUMBER() OVER (PARTITION BY m.session_id ORDER BY m.id DESC ROWS UNBOUNDED PRECEDING) AS k,
        SUM(CASE
            WHEN m.tool_calls IS NULL THEN 0
            WHEN jsonb_typeof(hermes_json_or_null(m.tool_calls)) = 'array' THEN jsonb_array_length(hermes_json_or_null(m.tool_calls))
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
        CAST(s.message_count AS bigint) AS stored_count,
        CAST(COALESCE(s.tool_call_count, 0) AS bigint) AS stored_calls,
        COALESCE(z.n, 0) AS n,
        CASE
            WHEN s.message_count IS NULL OR CAST(s.message_count AS bigint) < 0
                OR CAST(s.message_count AS bigint) > COALESCE(z.n, 0) THEN COALESCE(z.n, 0)
            ELSE CAST(s.message_count AS bigint)
        END AS k
    FROM sessions s
    LEFT JOIN sized z ON z.session_id = s.id
)
SELECT j.id,
    CAST(COALESCE(j.stored_count, 0) AS bigint) AS stored_messages,
    CAST(j.k AS bigint) AS actual_messages,
    CAST(j.stored_calls AS bigint) AS stored_calls,
    CAST(COALESCE(c.calls, 0) AS bigint) AS actual_calls
FROM judged j
LEFT JOIN countable c ON c.session_id = j.id AND c.k = j.k
WHERE (j.stored_count IS NULL AND j.n > 0) OR j.stored_count < 0 OR j.stored_count > j.n
   OR j.stored_calls <> COALESCE(c.calls, 0)
ORDER BY j.id COLLATE "C";

-- HealthOrphanMessages counts messages whose session row is missing (a
-- file written with foreign keys off).
-- PostgreSQL: as SQLite. The schema's foreign key is always enforced
-- there, so this finds none unless a superuser turned it off
-- (session_replication_role).
-- name: HealthOrphanMessages :one
SELECT COUNT(*) FROM messages m
WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = m.session_id);

-- HealthBadSessionValues lists the sessions whose numeric columns hold a
-- value of another storage class than the column's (a REAL, TEXT or BLOB
-- in an INTEGER column, TEXT or a BLOB in a REAL one, NULL is no finding), with
-- typeof() of each numeric column, the store names the columns that are
-- off. At most 101 rows, by id: the store lists 100 and says there are
-- more.
-- PostgreSQL: always no row. Its bigint and double precision columns hold
-- nothing but their type (or NULL), so no value can be of another class,
-- and there is no typeof(). The query keeps db/'s columns (text, named as
-- SQLite's), so that the row converts.
-- name: HealthBadSessionValues :many
SELECT id,
    CAST('' AS text) AS started_at, CAST('' AS text) AS ended_at,
    CAST('' AS text) AS message_count, CAST('' AS text) AS tool_call_count,
    CAST('' AS text) AS input_tokens, CAST('' AS text) AS output_tokens,
    CAST('' AS text) AS cache_read_tokens, CAST('' AS text) AS cache_write_tokens,
    CAST('' AS text) AS reasoning_tokens,
    CAST('' AS text) AS estimated_cost_usd, CAST('' AS text) AS actual_cost_usd,
    CAST('' AS text) AS api_call_count
FROM sessions
WHERE false
ORDER BY id COLLATE "C"
LIMIT 101;

-- HealthBadMessageValues is HealthBadSessionValues for the messages'
-- numeric columns (id is the rowid: always an integer).
-- PostgreSQL: always no row, as HealthBadSessionValues.
-- name: HealthBadMessageValues :many
SELECT id, CAST('' AS text) AS timestamp, CAST('' AS text) AS token_count
FROM messages
WHERE false
ORDER BY id
LIMIT 101;

-- HealthHasNULText reports whether any message's indexed text (content,
-- tool_name, tool_calls) holds a NUL byte, as upstream's multimodal
-- content ("\x00json:[...]") does. SQLite 3.40 (the one Python ships, which
-- upstream runs on) trigram-indexes such text only up to the NUL, and a
-- newer SQLite (ours) reads past it, so an index one built fails the
-- other's integrity check. Check asks only when the trigram index fails
-- it, the scan stops at the first such row. The casts make instr() compare
-- bytes, whatever a value's storage class.
-- PostgreSQL: always false. A text value cannot hold U+0000 there (the
-- server refuses it), and there is no FTS5 trigram index to disagree.
-- name: HealthHasNULText :one
SELECT CAST(false AS boolean) AS has_nul;
