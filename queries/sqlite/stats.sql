-- SessionTokenStatsByModel totals tokens and estimated cost per model,
-- costliest first. TOTAL() is 0.0 where every cost is NULL.
--
-- Each value is CAST to its column's type first, as the store reads a row
-- (a REAL, TEXT or BLOB a counter may hold counts as that CAST gives it),
-- and the sums are TOTAL()s cast back: SUM() fails the whole query with
-- "integer overflow" once a total passes the int64 range, TOTAL() is a
-- double (exact up to 2^53) that the CAST clamps to the int64 range.
-- name: SessionTokenStatsByModel :many
SELECT CAST(model AS TEXT) AS model,
    COUNT(*) AS session_count,
    CAST(TOTAL(CAST(input_tokens AS INTEGER)) AS INTEGER) AS total_input,
    CAST(TOTAL(CAST(output_tokens AS INTEGER)) AS INTEGER) AS total_output,
    CAST(TOTAL(CAST(estimated_cost_usd AS REAL)) AS REAL) AS total_cost
FROM sessions
WHERE model IS NOT NULL
GROUP BY model
ORDER BY total_cost DESC, model;

-- SessionTokenStatsBySource is the same totals per source (platform).
-- name: SessionTokenStatsBySource :many
SELECT source,
    COUNT(*) AS session_count,
    CAST(TOTAL(CAST(input_tokens AS INTEGER)) AS INTEGER) AS total_input,
    CAST(TOTAL(CAST(output_tokens AS INTEGER)) AS INTEGER) AS total_output,
    CAST(TOTAL(CAST(estimated_cost_usd AS REAL)) AS REAL) AS total_cost
FROM sessions
GROUP BY source
ORDER BY total_cost DESC, source;

-- SessionTopByTokens lists the sessions with the most input+output tokens,
-- each CAST as the store reads it; a sum past the int64 range becomes a
-- REAL, which the outer CAST clamps.
-- name: SessionTopByTokens :many
SELECT id, title, model,
    CAST(COALESCE(CAST(input_tokens AS INTEGER), 0) + COALESCE(CAST(output_tokens AS INTEGER), 0) AS INTEGER) AS total_tokens,
    estimated_cost_usd
FROM sessions
ORDER BY total_tokens DESC, id
LIMIT @limit;
