-- Async (background) delegations (async_delegations, v19): the durable half
-- of upstream's tools/async_delegation.py, which keeps its own connection
-- and its own copy of this protocol. The statements are its statements, so
-- a row either side writes reads the same on the other. Times are REAL
-- epoch seconds from the store's clock. A state of 'running' or
-- 'finalizing' is in flight; every other state is terminal.

-- DelegationDispatch records a dispatched delegation. OR REPLACE, as
-- upstream: a second dispatch with the same id starts the row over.
-- name: DelegationDispatch :exec
INSERT OR REPLACE INTO async_delegations (
    delegation_id, origin_session, origin_ui_session_id, parent_session_id,
    state, dispatched_at, updated_at, delivery_state, delivery_attempts,
    owner_pid, owner_started_at, task_json
) VALUES (
    @delegation_id, @origin_session, @origin_ui_session_id, @parent_session_id,
    'running', @dispatched_at, @updated_at, 'pending', 0,
    @owner_pid, @owner_started_at, @task_json
);

-- DelegationComplete records the terminal result and makes it due for
-- delivery again.
-- name: DelegationComplete :execrows
UPDATE async_delegations
SET state = @state, completed_at = @completed_at, updated_at = @updated_at,
    event_json = @event_json, result_json = @result_json, delivery_state = 'pending'
WHERE delegation_id = @delegation_id;

-- DelegationExists tells an unknown delegation from one a claim could not
-- take.
-- name: DelegationExists :one
SELECT EXISTS (SELECT 1 FROM async_delegations WHERE delegation_id = @delegation_id);

-- DelegationClaim takes the delivery of a pending completion for one
-- consumer, unless another holds a claim younger than the claim TTL
-- (claimed at or after stale_before). Each claim counts an attempt.
-- name: DelegationClaim :execrows
UPDATE async_delegations
SET delivery_claim = @claim, delivery_claimed_at = @now,
    delivery_attempts = delivery_attempts + 1, updated_at = @now
WHERE delegation_id = @delegation_id AND delivery_state = 'pending'
  AND (delivery_claim IS NULL OR delivery_claimed_at < @stale_before);

-- DelegationRelease gives a claim back after a failed delivery, only for
-- the consumer that holds it.
-- name: DelegationRelease :execrows
UPDATE async_delegations
SET delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = @now
WHERE delegation_id = @delegation_id AND delivery_state = 'pending'
  AND delivery_claim = @claim;

-- DelegationCompleteDelivery acknowledges a delivery by the consumer that
-- holds the claim, and clears the claim.
-- name: DelegationCompleteDelivery :execrows
UPDATE async_delegations
SET delivery_state = 'delivered', delivered_at = @now, updated_at = @now,
    delivery_claim = NULL, delivery_claimed_at = NULL
WHERE delegation_id = @delegation_id AND delivery_state = 'pending'
  AND delivery_claim = @claim;

-- DelegationMarkDelivered acknowledges a delivery without a claim (the
-- claim, if any, stays as it was, as upstream).
-- name: DelegationMarkDelivered :execrows
UPDATE async_delegations
SET delivery_state = 'delivered', delivered_at = @now, updated_at = @now
WHERE delegation_id = @delegation_id AND delivery_state != 'delivered';

-- DelegationDelete removes a delegation that never got scheduled.
-- name: DelegationDelete :execrows
DELETE FROM async_delegations WHERE delegation_id = @delegation_id;

-- DelegationInFlight lists the delegations still in flight, for the check
-- of their owners.
-- name: DelegationInFlight :many
SELECT * FROM async_delegations
WHERE (state = 'running' OR state = 'finalizing')
ORDER BY dispatched_at, delegation_id;

-- DelegationMarkUnknown records that a delegation's owner died before its
-- result: the outcome is unknown, and due for delivery.
-- name: DelegationMarkUnknown :execrows
UPDATE async_delegations
SET state = 'unknown', completed_at = @now, updated_at = @now,
    event_json = @event_json, result_json = @result_json, delivery_state = 'pending'
WHERE delegation_id = @delegation_id;

-- DelegationPruneDelivered drops delivered rows last touched before cutoff.
-- name: DelegationPruneDelivered :execrows
DELETE FROM async_delegations
WHERE delivery_state = 'delivered' AND updated_at < @cutoff;

-- DelegationCountTerminal counts the terminal rows.
-- name: DelegationCountTerminal :one
SELECT COUNT(*) FROM async_delegations WHERE state <> 'running' AND state <> 'finalizing';

-- DelegationPruneTerminal drops the oldest terminal rows, delivered ones
-- first (ties by id, so the choice is stable).
-- name: DelegationPruneTerminal :execrows
DELETE FROM async_delegations WHERE delegation_id IN (
    SELECT delegation_id FROM async_delegations
    WHERE state <> 'running' AND state <> 'finalizing'
    ORDER BY CASE delivery_state WHEN 'delivered' THEN 0 ELSE 1 END,
             updated_at ASC, delegation_id ASC
    LIMIT @excess
);

-- DelegationCountPending counts the terminal rows still due for delivery.
-- name: DelegationCountPending :one
SELECT COUNT(*) FROM async_delegations
WHERE state <> 'running' AND state <> 'finalizing' AND delivery_state = 'pending';

-- DelegationPrunePending drops the oldest terminal rows still due for
-- delivery (ties by id).
-- name: DelegationPrunePending :execrows
DELETE FROM async_delegations WHERE delegation_id IN (
    SELECT delegation_id FROM async_delegations
    WHERE state <> 'running' AND state <> 'finalizing' AND delivery_state = 'pending'
    ORDER BY updated_at ASC, delegation_id ASC
    LIMIT @excess
);

-- DelegationGet reads one delegation.
-- name: DelegationGet :one
SELECT * FROM async_delegations WHERE delegation_id = @delegation_id;

-- DelegationList reads every delegation, oldest dispatch first.
-- name: DelegationList :many
SELECT * FROM async_delegations ORDER BY dispatched_at, delegation_id;

-- DelegationUndelivered lists the completions due for delivery, as a
-- restarted process restores them onto its queue: oldest completion first.
-- name: DelegationUndelivered :many
SELECT * FROM async_delegations
WHERE state != 'running' AND delivery_state = 'pending' AND event_json IS NOT NULL
ORDER BY completed_at, delegation_id;
