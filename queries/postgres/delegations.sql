-- The PostgreSQL twins of queries/sqlite/delegations.sql.
--
-- Async (background) delegations (async_delegations, v19): the durable half
-- of upstream's tools/async_delegation.py, which keeps its own connection
-- and its own copy of this protocol. The statements are its statements, so
-- a row either side writes reads the same on the other. Times are REAL
-- epoch seconds from the store's clock. A state of 'running' or
-- 'finalizing' is in flight, every other state is terminal.
--
-- How the PostgreSQL text differs from SQLite's: INSERT OR REPLACE is
-- INSERT ... ON CONFLICT DO UPDATE (see DelegationDispatch), LIMIT takes a
-- bigint (sqlc would type a bare LIMIT parameter int32), delegation ids are
-- ordered COLLATE "C" (bytes, as SQLite's BINARY) whatever the database's
-- collation, and a NULL completed_at sorts first, where SQLite puts NULLs.

-- DelegationDispatch records a dispatched delegation. OR REPLACE, as
-- upstream: a second dispatch with the same id starts the row over.
-- PostgreSQL has no OR REPLACE: ON CONFLICT on the primary key sets every
-- column, those the INSERT leaves out to their defaults (NULL), which is
-- the row SQLite's delete-and-insert leaves (the table has no other
-- unique key, no trigger and no foreign key, so the delete has no other
-- visible effect, and its rowid is not read).
-- name: DelegationDispatch :exec
INSERT INTO async_delegations (
    delegation_id, origin_session, origin_ui_session_id, parent_session_id,
    state, dispatched_at, updated_at, delivery_state, delivery_attempts,
    owner_pid, owner_started_at, task_json
) VALUES (
    @delegation_id, @origin_session, @origin_ui_session_id, @parent_session_id,
    'running', @dispatched_at, @updated_at, 'pending', 0,
    @owner_pid, @owner_started_at, @task_json
)
ON CONFLICT (delegation_id) DO UPDATE SET
    origin_session = excluded.origin_session,
    origin_ui_session_id = excluded.origin_ui_session_id,
    parent_session_id = excluded.parent_session_id,
    state = excluded.state,
    dispatched_at = excluded.dispatched_at,
    completed_at = NULL,
    updated_at = excluded.updated_at,
    event_json = NULL,
    result_json = NULL,
    delivery_state = excluded.delivery_state,
    delivery_attempts = excluded.delivery_attempts,
    delivered_at = NULL,
    owner_pid = excluded.owner_pid,
    owner_started_at = excluded.owner_started_at,
    task_json = excluded.task_json,
    delivery_claim = NULL,
    delivery_claimed_at = NULL;

-- DelegationComplete records the terminal result and makes it due for
-- delivery again.
-- PostgreSQL: as SQLite.
-- name: DelegationComplete :execrows
UPDATE async_delegations
SET state = @state, completed_at = @completed_at, updated_at = @updated_at,
    event_json = @event_json, result_json = @result_json, delivery_state = 'pending'
WHERE delegation_id = @delegation_id;

-- DelegationExists tells an unknown delegation from one a claim could not
-- take.
-- PostgreSQL: as SQLite.
-- name: DelegationExists :one
SELECT EXISTS (SELECT 1 FROM async_delegations WHERE delegation_id = @delegation_id);

-- DelegationClaim takes the delivery of a pending completion for one
-- consumer, unless another holds a claim younger than the claim TTL
-- (claimed at or after stale_before). Each claim counts an attempt.
-- PostgreSQL: as SQLite.
-- name: DelegationClaim :execrows
UPDATE async_delegations
SET delivery_claim = @claim, delivery_claimed_at = @now,
    delivery_attempts = delivery_attempts + 1, updated_at = @now
WHERE delegation_id = @delegation_id AND delivery_state = 'pending'
  AND (delivery_claim IS NULL OR delivery_claimed_at < @stale_before);

-- DelegationRelease gives a claim back after a failed delivery, only for
-- the consumer that holds it.
-- PostgreSQL: as SQLite.
-- name: DelegationRelease :execrows
UPDATE async_delegations
SET delivery_claim = NULL, delivery_claimed_at = NULL, updated_at = @now
WHERE delegation_id = @delegation_id AND delivery_state = 'pending'
  AND delivery_claim = @claim;

-- DelegationCompleteDelivery acknowledges a delivery by the consumer that
-- holds the claim, and clears the claim.
-- PostgreSQL: as SQLite.
-- name: DelegationCompleteDelivery :execrows
UPDATE async_delegations
SET delivery_state = 'delivered', delivered_at = @now, updated_at = @now,
    delivery_claim = NULL, delivery_claimed_at = NULL
WHERE delegation_id = @delegation_id AND delivery_state = 'pending'
  AND delivery_claim = @claim;

-- DelegationMarkDelivered acknowledges a delivery without a claim (the
-- claim, if any, stays as it was, as upstream).
-- PostgreSQL: as SQLite.
-- name: DelegationMarkDelivered :execrows
UPDATE async_delegations
SET delivery_state = 'delivered', delivered_at = @now, updated_at = @now
WHERE delegation_id = @delegation_id AND delivery_state != 'delivered';

-- DelegationDelete removes a delegation that never got scheduled.
-- PostgreSQL: as SQLite.
-- name: DelegationDelete :execrows
DELETE FROM async_delegations WHERE delegation_id = @delegation_id;

-- DelegationInFlight lists the delegations still in flight, for the check
-- of their owners.
-- PostgreSQL: the id tie broken COLLATE "C".
-- name: DelegationInFlight :many
SELECT * FROM async_delegations
WHERE (state = 'running' OR state = 'finalizing')
ORDER BY dispatched_at, delegation_id COLLATE "C";

-- DelegationMarkUnknown records that a delegation's owner died before its
-- result: the outcome is unknown, and due for delivery.
-- PostgreSQL: as SQLite.
-- name: DelegationMarkUnknown :execrows
UPDATE async_delegations
SET state = 'unknown', completed_at = @now, updated_at = @now,
    event_json = @event_json, result_json = @result_json, delivery_state = 'pending'
WHERE delegation_id = @delegation_id;

-- DelegationPruneDelivered drops delivered rows last touched before cutoff.
-- PostgreSQL: as SQLite.
-- name: DelegationPruneDelivered :execrows
DELETE FROM async_delegations
WHERE delivery_state = 'delivered' AND updated_at < @cutoff;

-- DelegationCountTerminal counts the terminal rows.
-- PostgreSQL: as SQLite.
-- name: DelegationCountTerminal :one
SELECT COUNT(*) FROM async_delegations WHERE state <> 'running' AND state <> 'finalizing';

-- DelegationPruneTerminal drops the oldest terminal rows, delivered ones
-- first (ties by id, so the choice is stable).
-- PostgreSQL: LIMIT takes a bigint, the id tie broken COLLATE "C".
-- PostgreSQL: a negative excess is no limit, as SQLite reads LIMIT -n.
-- name: DelegationPruneTerminal :execrows
DELETE FROM async_delegations WHERE delegation_id IN (
    SELECT delegation_id FROM async_delegations
    WHERE state <> 'running' AND state <> 'finalizing'
    ORDER BY CASE delivery_state WHEN 'delivered' THEN 0 ELSE 1 END,
             updated_at ASC, delegation_id COLLATE "C" ASC
    LIMIT NULLIF(GREATEST(CAST(sqlc.arg(excess) AS bigint), -1), -1)
);

-- DelegationCountPending counts the terminal rows still due for delivery.
-- PostgreSQL: as SQLite.
-- name: DelegationCountPending :one
SELECT COUNT(*) FROM async_delegations
WHERE state <> 'running' AND state <> 'finalizing' AND delivery_state = 'pending';

-- DelegationPrunePending drops the oldest terminal rows still due for
-- delivery (ties by id).
-- PostgreSQL: LIMIT takes a bigint, the id tie broken COLLATE "C".
-- name: DelegationPrunePending :execrows
DELETE FROM async_delegations WHERE delegation_id IN (
    SELECT delegation_id FROM async_delegations
    WHERE state <> 'running' AND state <> 'finalizing' AND delivery_state = 'pending'
    ORDER BY updated_at ASC, delegation_id COLLATE "C" ASC
    LIMIT NULLIF(GREATEST(CAST(sqlc.arg(excess) AS bigint), -1), -1)
);

-- DelegationGet reads one delegation.
-- PostgreSQL: as SQLite.
-- name: DelegationGet :one
SELECT * FROM async_delegations WHERE delegation_id = @delegation_id;

-- DelegationList reads every delegation, oldest dispatch first.
-- PostgreSQL: the id tie broken COLLATE "C".
-- name: DelegationList :many
SELECT * FROM async_delegations ORDER BY dispatched_at, delegation_id COLLATE "C";

-- DelegationUndelivered lists the completions due for delivery, as a
-- restarted process restores them onto its queue: oldest completion first.
-- PostgreSQL: a NULL completed_at first (SQLite's place for NULLs, where
-- PostgreSQL would put it last), the id tie broken COLLATE "C".
-- name: DelegationUndelivered :many
SELECT * FROM async_delegations
WHERE state != 'running' AND delivery_state = 'pending' AND event_json IS NOT NULL
ORDER BY completed_at NULLS FIRST, delegation_id COLLATE "C";
