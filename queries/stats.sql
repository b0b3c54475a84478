-- SessionTokenStatsByModel totals tokens and estimated cost per model,
-- costliest first. TOTAL() is 0.0 where every cost is NULL.
-- name: SessionTokenStatsByModel :many
SELECT CAST(model AS TEXT) AS model,
    COUNT(*) AS session_count,
    CAST(COALESCE(SUM(input_tokens), 0) AS INTEGER) AS total_input,
    CAST(COALESCE(SUM(output_tokens), 0) AS INTEGER) AS total_output,
    CAST(TOTAL(estimated_cost_usd) AS REAL) AS total_cost
FROM sessions
WHERE model IS NOT NULL
GROUP BY model
ORDER BY total_cost DESC, model;

-- SessionTokenStatsBySource is the same totals per source (platform).
-- name: SessionTokenStatsBySource :many
SELECT source,
    COUNT(*) AS session_count,
    CAST(COALESCE(SUM(input_tokens), 0) AS INTEGER) AS total_input,
    CAST(COALESCE(SUM(output_tokens), 0) AS INTEGER) AS total_output,
    CAST(TOTAL(estimated_cost_usd) AS REAL) AS total_cost
FROM sessions
GROUP BY source
ORDER BY total_cost DESC, source;

-- SessionTopByTokens lists the sessions with the most input+output tokens.
-- name: SessionTopByTokens :many
SELECT id, title, model,
    CAST(COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) AS INTEGER) AS total_tokens,
    estimated_cost_usd
FROM sessions
ORDER BY total_tokens DESC, id
LIMIT @limit;
