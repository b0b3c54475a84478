package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pyjson"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// DelegationUnknownError is the error a delegation whose owner died is
// completed with (upstream's text).
const DelegationUnknownError = "Delegation owner exited before recording a terminal result; outcome unknown."

// RecoverAbandonedDelegations completes every delegation still in flight
// whose owner process is gone with the state DelegationUnknown, an event
// and a result saying so (DelegationUnknownError), due for delivery: the
// outcome is unknown, and the parent must hear about it. alive reports
// whether the process pid that started at startedAt (nil when not
// recorded) still runs; it is how the caller checks processes (upstream:
// the pid exists and, when a start time is recorded, the process's start
// time equals it). A delegation without an owner pid counts as abandoned
// without asking. It returns how many it completed; all in one
// transaction, alive may run more than once per row when the write is
// retried.
//
// The event and result are the ones upstream writes, key for key, so its
// tool delivers them as its own. A task_json that is not a JSON object
// reads as {} (upstream's recovery would stop at it, leaving every later
// row in flight).
//
// It returns ErrEmptyArgument for a nil alive, ErrBusy or ErrClosed.
func (s *Store) RecoverAbandonedDelegations(ctx context.Context, alive func(pid int64, startedAt *int64) bool) (_ int, err error) {
	defer wrap(&err, "recover abandoned delegations")
	if alive == nil {
		return 0, fmt.Errorf("alive: %w", ErrEmptyArgument)
	}
	var recovered int
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		recovered = 0
		rows, err := s.q.DelegationInFlight(ctx, tx)
		if err != nil {
			return err
		}
		now := s.now()
		for _, r := range rows {
			if r.OwnerPID.Int64 != 0 && alive(r.OwnerPID.Int64, optionalInt64(r.OwnerStartedAt)) {
				continue
			}
			event, result := unknownOutcome(r, now)
			if _, err := s.q.DelegationMarkUnknown(ctx, tx, db.DelegationMarkUnknownParams{
				Now: sqlnum.RealOf(now), EventJSON: &event, ResultJSON: &result, DelegationID: r.DelegationID,
			}); err != nil {
				return err
			}
			recovered++
		}
		return nil
	})
	return recovered, err
}

// optionalInt64 is a nullable INTEGER column's value: nil for NULL.
func optionalInt64(n sqlnum.Int) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

// unknownOutcome builds the event and result upstream's
// recover_abandoned_delegations writes for row r at now, as json.dumps
// writes them: the event carries the routing fields of the row and the
// task fields of its task_json.
func unknownOutcome(r db.AsyncDelegation, now float64) (event, result string) {
	task := map[string]json.RawMessage{}
	if r.TaskJSON != nil {
		if err := json.Unmarshal([]byte(*r.TaskJSON), &task); err != nil || task == nil {
			task = map[string]json.RawMessage{}
		}
	}
	taskValue := func(key, absent string) string {
		if raw, ok := task[key]; ok {
			if text, err := pyjson.Encode(raw); err == nil {
				return text
			}
		}
		return absent
	}
	parent := "null"
	if r.ParentSessionID != nil {
		parent = pyString(*r.ParentSessionID)
	}
	isBatch := "false"
	if pyjson.Truthy(task["is_batch"]) {
		isBatch = "true"
	}
	var o pyObject
	o.add("type", pyString("async_delegation"))
	o.add("delegation_id", pyString(r.DelegationID))
	o.add("session_key", pyString(r.OriginSession))
	o.add("origin_ui_session_id", pyString(r.OriginUiSessionID))
	o.add("parent_session_id", parent)
	o.add("goal", taskValue("goal", `""`))
	for _, k := range []string{"goals", "context", "toolsets", "role", "model"} {
		o.add(k, taskValue(k, "null"))
	}
	o.add("is_batch", isBatch)
	o.add("status", pyString(DelegationUnknown))
	o.add("summary", "null")
	o.add("error", pyString(DelegationUnknownError))
	o.add("dispatched_at", string(pyjson.AppendFloat(nil, r.DispatchedAt.Float64)))
	o.add("completed_at", string(pyjson.AppendFloat(nil, now)))

	var res pyObject
	res.add("status", pyString(DelegationUnknown))
	res.add("summary", "null")
	res.add("error", pyString(DelegationUnknownError))
	return o.String(), res.String()
}

// pyObject writes a JSON object as json.dumps does: keys in the order
// added, ", " between members and ": " after keys. Keys are ASCII names;
// values are Python-format JSON text.
type pyObject struct{ b []byte }

// add appends one member.
func (o *pyObject) add(key, value string) {
	if o.b == nil {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ", "...)
	}
	o.b = append(o.b, '"')
	o.b = append(o.b, key...)
	o.b = append(o.b, `": `...)
	o.b = append(o.b, value...)
}

// String returns the object's text.
func (o *pyObject) String() string {
	if o.b == nil {
		return "{}"
	}
	return string(o.b) + "}"
}

// pyString is s as json.dumps writes a str (ensure_ascii). s is UTF-8 text
// read from the database; a byte that is not UTF-8 is written as U+FFFD.
func pyString(s string) string {
	raw, _ := json.Marshal(s) // a string always marshals
	text, _ := pyjson.Encode(raw)
	return text
}
