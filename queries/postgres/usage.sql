-- UsageCounters reads one session_model_usage row's counters inside the
-- write transaction that adds to them, so the store can refuse a sum past
-- the int64 range (SQLite would store it as a REAL) before writing.
-- name: UsageCounters :one
SELECT api_call_count, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, reasoning_tokens
FROM session_model_usage
WHERE session_id = @session_id AND model = @model AND billing_provider = @billing_provider
  AND billing_base_url = @billing_base_url AND billing_mode = @billing_mode;

-- UsageRecord is upstream's _record_model_usage: one call's delta added to
-- the row of its (session, model, provider, base URL, mode) route, created
-- on the route's first call. Counters and costs add; cost status and source
-- take a new non-NULL value; first_seen stays, last_seen moves.
-- PostgreSQL: the same upsert, the existing row's columns named by the
-- table (SQLite reads a bare name as the existing row's, PostgreSQL may
-- call it ambiguous with excluded's).
-- name: UsageRecord :exec
INSERT INTO session_model_usage (
    session_id, model, billing_provider, billing_base_url, billing_mode,
    api_call_count, input_tokens, output_tokens,
    cache_read_tokens, cache_write_tokens, reasoning_tokens,
    estimated_cost_usd, actual_cost_usd, cost_status, cost_source,
    first_seen, last_seen
) VALUES (
    @session_id, @model, @billing_provider, @billing_base_url, @billing_mode,
    @api_call_count, @input_tokens, @output_tokens,
    @cache_read_tokens, @cache_write_tokens, @reasoning_tokens,
    @estimated_cost_usd, @actual_cost_usd, @cost_status, @cost_source,
    @now, @now
)
ON CONFLICT(session_id, model, billing_provider, billing_base_url, billing_mode)
DO UPDATE SET
    api_call_count = session_model_usage.api_call_count + excluded.api_call_count,
    input_tokens = session_model_usage.input_tokens + excluded.input_tokens,
    output_tokens = session_model_usage.output_tokens + excluded.output_tokens,
    cache_read_tokens = session_model_usage.cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = session_model_usage.cache_write_tokens + excluded.cache_write_tokens,
    reasoning_tokens = session_model_usage.reasoning_tokens + excluded.reasoning_tokens,
    estimated_cost_usd = hermes_add(session_model_usage.estimated_cost_usd, excluded.estimated_cost_usd),
    actual_cost_usd = hermes_add(session_model_usage.actual_cost_usd, excluded.actual_cost_usd),
    cost_status = COALESCE(excluded.cost_status, session_model_usage.cost_status),
    cost_source = COALESCE(excluded.cost_source, session_model_usage.cost_source),
    last_seen = excluded.last_seen;

-- UsageOfSession lists a session's per-route usage rows in the order their
-- routes were first used (then by the key, for rows seeded with one time).
-- PostgreSQL: NULLS FIRST is where SQLite sorts a NULL first_seen
-- (PostgreSQL's default puts it last), and the key's text sorts COLLATE
-- "C", SQLite's byte order.
-- name: UsageOfSession :many
SELECT * FROM session_model_usage
WHERE session_id = @session_id
ORDER BY first_seen NULLS FIRST, model COLLATE "C", billing_provider COLLATE "C",
    billing_base_url COLLATE "C", billing_mode COLLATE "C";

-- UsageByModel totals usage per model as upstream's insights attributes it
-- (agent/insights.py _compute_model_breakdown): the session_model_usage rows
-- of the sessions picked (started at or after since, of one source; NULL
-- means no bound), then, for each picked session, what its aggregate
-- counters hold beyond the sum of its rows (absolute-mode updates, rows
-- never seeded), under the session's model. A residual never goes below
-- zero and has no reasoning tokens; an empty model is 'unknown'. Unlike
-- insights, models are not shortened to their last path segment and costs
-- are the stored ones (no price table here).
--
-- Every value is CAST as the store reads it and summed with TOTAL() (a
-- double, exact to 2^53), cast back at the end, as the statistics queries
-- do: SUM() would fail the whole query past the int64 range.
-- PostgreSQL: the columns hold only their own type, so the CASTs to them
-- go. TOTAL() of integers is SUM (exact) made a double, as TOTAL's exact
-- integer sum is, TOTAL() of the mixed parts is SUM of doubles, scalar
-- MAX(0, x) is GREATEST, and the final CAST to INTEGER clamps to the int64
-- range by CASE as SQLite's does (::bigint would fail past it). The parts'
-- counters are doubles (UNION ALL of bigint and double), as the
-- residual's are on SQLite, and the totals below 2^53 are exact on both.
-- Costs are totalled by hermes_total, the schema's aggregate that adds
-- doubles as TOTAL() does (Kahan-Babuska-Neumaier compensated), where SUM
-- would add them plainly and differ in the last bits. Models tie-break
-- COLLATE "C", SQLite's byte order.
-- name: UsageByModel :many
WITH picked AS (
    SELECT id, model, api_call_count, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, estimated_cost_usd, actual_cost_usd
    FROM sessions
    WHERE (sqlc.narg(since)::float8 IS NULL OR started_at >= sqlc.narg(since)::float8)
      AND (sqlc.narg(source)::text IS NULL OR source = sqlc.narg(source)::text)
),
routed AS (
    SELECT u.session_id AS session_id,
        COALESCE(NULLIF(u.model, ''), 'unknown') AS model,
        COALESCE(u.api_call_count, 0) AS calls,
        COALESCE(u.input_tokens, 0) AS input,
        COALESCE(u.output_tokens, 0) AS output,
        COALESCE(u.cache_read_tokens, 0) AS cache_read,
        COALESCE(u.cache_write_tokens, 0) AS cache_write,
        COALESCE(u.reasoning_tokens, 0) AS reasoning,
        COALESCE(u.estimated_cost_usd, 0.0) AS est,
        COALESCE(u.actual_cost_usd, 0.0) AS act
    FROM session_model_usage u JOIN picked p ON p.id = u.session_id
),
attributed AS (
    SELECT session_id, COALESCE(SUM(calls), 0)::float8 AS calls,
        COALESCE(SUM(input), 0)::float8 AS input, COALESCE(SUM(output), 0)::float8 AS output,
        COALESCE(SUM(cache_read), 0)::float8 AS cache_read,
        COALESCE(SUM(cache_write), 0)::float8 AS cache_write,
        hermes_total(est)::float8 AS est, hermes_total(act)::float8 AS act
    FROM routed GROUP BY session_id
),
residual AS (
    SELECT p.id AS session_id,
        COALESCE(NULLIF(p.model, ''), 'unknown') AS model,
        GREATEST(0, COALESCE(p.api_call_count, 0) - COALESCE(a.calls, 0)) AS calls,
        GREATEST(0, COALESCE(p.input_tokens, 0) - COALESCE(a.input, 0)) AS input,
        GREATEST(0, COALESCE(p.output_tokens, 0) - COALESCE(a.output, 0)) AS output,
        GREATEST(0, COALESCE(p.cache_read_tokens, 0) - COALESCE(a.cache_read, 0)) AS cache_read,
        GREATEST(0, COALESCE(p.cache_write_tokens, 0) - COALESCE(a.cache_write, 0)) AS cache_write,
        0 AS reasoning,
        GREATEST(0.0, COALESCE(p.estimated_cost_usd, 0.0) - COALESCE(a.est, 0.0)) AS est,
        GREATEST(0.0, COALESCE(p.actual_cost_usd, 0.0) - COALESCE(a.act, 0.0)) AS act
    FROM picked p LEFT JOIN attributed a ON a.session_id = p.id
),
parts AS (
    SELECT session_id, model, calls::float8 AS calls, input::float8 AS input,
        output::float8 AS output, cache_read::float8 AS cache_read,
        cache_write::float8 AS cache_write, reasoning::float8 AS reasoning, est, act
    FROM routed
    UNION ALL
    SELECT session_id, model, calls, input, output, cache_read, cache_write, reasoning, est, act FROM residual
    WHERE calls > 0 OR input > 0 OR output > 0 OR cache_read > 0 OR cache_write > 0 OR est > 0 OR act > 0
),
totals AS (
    SELECT model,
        COUNT(DISTINCT session_id) AS session_count,
        COALESCE(SUM(calls), 0) AS calls, COALESCE(SUM(input), 0) AS input,
        COALESCE(SUM(output), 0) AS output, COALESCE(SUM(cache_read), 0) AS cache_read,
        COALESCE(SUM(cache_write), 0) AS cache_write, COALESCE(SUM(reasoning), 0) AS reasoning,
        hermes_total(est)::float8 AS est, hermes_total(act)::float8 AS act
    FROM parts
    GROUP BY model
)
SELECT model::text AS model,
    session_count,
    (CASE WHEN calls >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN calls < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE calls::bigint END)::bigint AS api_call_count,
    (CASE WHEN input >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN input < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE input::bigint END)::bigint AS input_tokens,
    (CASE WHEN output >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN output < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE output::bigint END)::bigint AS output_tokens,
    (CASE WHEN cache_read >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN cache_read < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE cache_read::bigint END)::bigint AS cache_read_tokens,
    (CASE WHEN cache_write >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN cache_write < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE cache_write::bigint END)::bigint AS cache_write_tokens,
    (CASE WHEN reasoning >= 9223372036854775807::float8 THEN 9223372036854775807
          WHEN reasoning < '-9223372036854775808'::float8 THEN '-9223372036854775808'::bigint
          ELSE reasoning::bigint END)::bigint AS reasoning_tokens,
    est::float8 AS estimated_cost_usd,
    act::float8 AS actual_cost_usd
FROM totals
ORDER BY estimated_cost_usd DESC, model COLLATE "C";
