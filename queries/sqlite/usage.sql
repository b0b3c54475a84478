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
    api_call_count = api_call_count + excluded.api_call_count,
    input_tokens = input_tokens + excluded.input_tokens,
    output_tokens = output_tokens + excluded.output_tokens,
    cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens,
    estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd,
    actual_cost_usd = actual_cost_usd + excluded.actual_cost_usd,
    cost_status = COALESCE(excluded.cost_status, cost_status),
    cost_source = COALESCE(excluded.cost_source, cost_source),
    last_seen = excluded.last_seen;

-- UsageOfSession lists a session's per-route usage rows in the order their
-- routes were first used (then by the key, for rows seeded with one time).
-- name: UsageOfSession :many
SELECT * FROM session_model_usage
WHERE session_id = @session_id
ORDER BY first_seen, model, billing_provider, billing_base_url, billing_mode;

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
-- name: UsageByModel :many
WITH picked AS (
    SELECT id, model, api_call_count, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, estimated_cost_usd, actual_cost_usd
    FROM sessions
    WHERE (CAST(sqlc.narg(since) AS REAL) IS NULL OR started_at >= CAST(sqlc.narg(since) AS REAL))
      AND (CAST(sqlc.narg(source) AS TEXT) IS NULL OR source = CAST(sqlc.narg(source) AS TEXT))
),
routed AS (
    SELECT u.session_id AS session_id,
        COALESCE(NULLIF(CAST(u.model AS TEXT), ''), 'unknown') AS model,
        COALESCE(CAST(u.api_call_count AS INTEGER), 0) AS calls,
        COALESCE(CAST(u.input_tokens AS INTEGER), 0) AS input,
        COALESCE(CAST(u.output_tokens AS INTEGER), 0) AS output,
        COALESCE(CAST(u.cache_read_tokens AS INTEGER), 0) AS cache_read,
        COALESCE(CAST(u.cache_write_tokens AS INTEGER), 0) AS cache_write,
        COALESCE(CAST(u.reasoning_tokens AS INTEGER), 0) AS reasoning,
        COALESCE(CAST(u.estimated_cost_usd AS REAL), 0.0) AS est,
        COALESCE(CAST(u.actual_cost_usd AS REAL), 0.0) AS act
    FROM session_model_usage u JOIN picked p ON p.id = u.session_id
),
attributed AS (
    SELECT session_id, TOTAL(calls) AS calls, TOTAL(input) AS input, TOTAL(output) AS output,
        TOTAL(cache_read) AS cache_read, TOTAL(cache_write) AS cache_write,
        TOTAL(est) AS est, TOTAL(act) AS act
    FROM routed GROUP BY session_id
),
residual AS (
    SELECT p.id AS session_id,
        COALESCE(NULLIF(CAST(p.model AS TEXT), ''), 'unknown') AS model,
        MAX(0, COALESCE(CAST(p.api_call_count AS INTEGER), 0) - COALESCE(a.calls, 0)) AS calls,
        MAX(0, COALESCE(CAST(p.input_tokens AS INTEGER), 0) - COALESCE(a.input, 0)) AS input,
        MAX(0, COALESCE(CAST(p.output_tokens AS INTEGER), 0) - COALESCE(a.output, 0)) AS output,
        MAX(0, COALESCE(CAST(p.cache_read_tokens AS INTEGER), 0) - COALESCE(a.cache_read, 0)) AS cache_read,
        MAX(0, COALESCE(CAST(p.cache_write_tokens AS INTEGER), 0) - COALESCE(a.cache_write, 0)) AS cache_write,
        0 AS reasoning,
        MAX(0.0, COALESCE(CAST(p.estimated_cost_usd AS REAL), 0.0) - COALESCE(a.est, 0.0)) AS est,
        MAX(0.0, COALESCE(CAST(p.actual_cost_usd AS REAL), 0.0) - COALESCE(a.act, 0.0)) AS act
    FROM picked p LEFT JOIN attributed a ON a.session_id = p.id
),
parts AS (
    SELECT session_id, model, calls, input, output, cache_read, cache_write, reasoning, est, act FROM routed
    UNION ALL
    SELECT session_id, model, calls, input, output, cache_read, cache_write, reasoning, est, act FROM residual
    WHERE calls > 0 OR input > 0 OR output > 0 OR cache_read > 0 OR cache_write > 0 OR est > 0 OR act > 0
)
SELECT CAST(model AS TEXT) AS model,
    COUNT(DISTINCT session_id) AS session_count,
    CAST(TOTAL(calls) AS INTEGER) AS api_call_count,
    CAST(TOTAL(input) AS INTEGER) AS input_tokens,
    CAST(TOTAL(output) AS INTEGER) AS output_tokens,
    CAST(TOTAL(cache_read) AS INTEGER) AS cache_read_tokens,
    CAST(TOTAL(cache_write) AS INTEGER) AS cache_write_tokens,
    CAST(TOTAL(reasoning) AS INTEGER) AS reasoning_tokens,
    CAST(TOTAL(est) AS REAL) AS estimated_cost_usd,
    CAST(TOTAL(act) AS REAL) AS actual_cost_usd
FROM parts
GROUP BY model
ORDER BY estimated_cost_usd DESC, model;
