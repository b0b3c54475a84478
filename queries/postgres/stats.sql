-- SessionTokenStatsByModel totals tokens and estimated cost per model,
-- costliest first. TOTAL() is 0.0 where every cost is NULL.
--
-- Each value is CAST to its column's type first, as the store reads a row
-- (a REAL, TEXT or BLOB a counter may hold counts as that CAST gives it),
-- and the sums are TOTAL()s cast back: SUM() fails the whole query with
-- "integer overflow" once a total passes the int64 range, TOTAL() is a
-- double (exact up to 2^53) that the CAST clamps to the int64 range.
-- PostgreSQL: the columns hold only their own type, so no inner CAST. A
-- token total is SUM (exact, numeric) made a double as TOTAL's is, then
-- clamped to the int64 range by the CASE as SQLite's CAST clamps (a plain
-- ::bigint would fail past it). The cost total is hermes_total, the
-- schema's aggregate that adds doubles as TOTAL() does (Kahan-Babuska-
-- Neumaier compensated, 0.0 for none), where SUM would add them plainly
-- (0.1 + 0.2 + 0.3 is 0.6000000000000001 by SUM, 0.6 by TOTAL). Models
-- tie-break COLLATE "C", SQLite's byte order.
-- name: SessionTokenStatsByModel :many
SELECT model, session_count,
    (CASE WHEN total_input >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN total_input < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE total_input::bigint END)::bigint AS total_input,
    (CASE WHEN total_output >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN total_output < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE total_output::bigint END)::bigint AS total_output,
    total_cost
FROM (
    SELECT model::text AS model,
        COUNT(*) AS session_count,
        COALESCE(SUM(input_tokens), 0)::float8 AS total_input,
        COALESCE(SUM(output_tokens), 0)::float8 AS total_output,
        hermes_total(estimated_cost_usd)::float8 AS total_cost
    FROM sessions
    WHERE model IS NOT NULL
    GROUP BY model
) t
ORDER BY total_cost DESC, model COLLATE "C";

-- SessionTokenStatsBySource is the same totals per source (platform).
-- PostgreSQL: as SessionTokenStatsByModel.
-- name: SessionTokenStatsBySource :many
SELECT source, session_count,
    (CASE WHEN total_input >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN total_input < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE total_input::bigint END)::bigint AS total_input,
    (CASE WHEN total_output >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN total_output < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE total_output::bigint END)::bigint AS total_output,
    total_cost
FROM (
    SELECT source,
        COUNT(*) AS session_count,
        COALESCE(SUM(input_tokens), 0)::float8 AS total_input,
        COALESCE(SUM(output_tokens), 0)::float8 AS total_output,
        hermes_total(estimated_cost_usd)::float8 AS total_cost
    FROM sessions
    GROUP BY source
) t
ORDER BY total_cost DESC, source COLLATE "C";

-- SessionTopByTokens lists the sessions with the most input+output tokens,
-- each CAST as the store reads it; a sum past the int64 range becomes a
-- REAL, which the outer CAST clamps.
-- PostgreSQL: bigint + bigint fails past the int64 range where SQLite's
-- sum becomes a REAL the CAST clamps, so the sum is numeric, clamped by
-- LEAST and GREATEST (the same values). Ids tie-break COLLATE "C". A
-- negative LIMIT is no limit, as on SQLite (see SessionBrowse).
-- name: SessionTopByTokens :many
SELECT id, title, model,
    LEAST(GREATEST(COALESCE(input_tokens, 0)::numeric + COALESCE(output_tokens, 0),
        -9223372036854775808), 9223372036854775807)::bigint AS total_tokens,
    estimated_cost_usd
FROM sessions
ORDER BY total_tokens DESC, id COLLATE "C"
LIMIT NULLIF(GREATEST(sqlc.arg('limit')::bigint, -1), -1);
