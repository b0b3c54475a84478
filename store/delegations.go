package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pyjson"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// Async (background) delegations (async_delegations): a subagent the parent
// dispatched to run in the background, its completion, and the delivery of
// that completion back into the parent's conversation, durable across
// restarts. Upstream's SessionDB only creates the table; its
// tools/async_delegation.py reads and writes it over a connection of its
// own, and these methods speak that tool's protocol with the same
// statements, so a row written here reads back there and the other way
// round. Times are epoch seconds from the store's clock; the JSON columns
// (task_json, event_json, result_json) hold Python's json.dumps text (", "
// and ": " separators, non-ASCII escaped), re-encoded from the caller's
// JSON by package pyjson, as the tool writes them. The rows are not tied to
// sessions (the table has no foreign key).

// The delegation states the store writes or tests; the tool also writes
// the status its runner returned ("error", "interrupted", …) as the state.
// DelegationRunning and DelegationFinalizing are in flight, every other
// state is terminal.
const (
	DelegationRunning    = "running"    // dispatched, its runner has not returned
	DelegationFinalizing = "finalizing" // in flight: its result is being recorded
	DelegationCompleted  = "completed"  // the runner's result is recorded
	DelegationUnknown    = "unknown"    // its owner died first (RecoverAbandonedDelegations)
)

// The delivery states of a delegation's completion.
const (
	DeliveryPending   = "pending"   // not yet delivered into the parent's conversation
	DeliveryDelivered = "delivered" // delivered (DeliveredAt says when)
)

// Retention defaults, upstream's: delivered rows are kept 7 days after
// their last change, at most 50 terminal rows and at most 1000 terminal
// rows still pending delivery.
const (
	DefaultDelegationMaxAge       = 7 * 24 * time.Hour
	DefaultMaxTerminalDelegations = 50
	DefaultMaxPendingDelegations  = 1000
)

// Delegation is one row of async_delegations.
type Delegation struct {
	// ID is the delegation id; State its state (DelegationRunning, …).
	ID string `json:"delegation_id"`
	// OriginSession is the gateway session key the completion is routed
	// back to ("" for the CLI); OriginUISessionID the UI tab that
	// dispatched it; ParentSessionID the dispatching agent's session.
	OriginSession     string     `json:"origin_session"`
	OriginUISessionID string     `json:"origin_ui_session_id"`
	ParentSessionID   *string    `json:"parent_session_id"`
	State             string     `json:"state"`
	DispatchedAt      Timestamp  `json:"dispatched_at"`
	CompletedAt       *Timestamp `json:"completed_at"`
	UpdatedAt         Timestamp  `json:"updated_at"`
	// Event is the completion event the tool queues; Result the runner's
	// result (nil until completed).
	Event            JSONText   `json:"event_json"`
	Result           JSONText   `json:"result_json"`
	DeliveryState    string     `json:"delivery_state"`
	DeliveryAttempts int64      `json:"delivery_attempts"`
	DeliveredAt      *Timestamp `json:"delivered_at"`
	// OwnerPID and OwnerStartedAt identify the process running it.
	OwnerPID       *int64   `json:"owner_pid"`
	OwnerStartedAt *int64   `json:"owner_started_at"`
	Task           JSONText `json:"task_json"`
	// DeliveryClaim is the consumer holding the delivery, since
	// DeliveryClaimedAt.
	DeliveryClaim     *string    `json:"delivery_claim"`
	DeliveryClaimedAt *Timestamp `json:"delivery_claimed_at"`

	// Stored is Session.Stored for the row's numeric columns.
	Stored map[string]any `json:"-"`
}

// delegationFromDB converts a generated row.
func delegationFromDB(r db.AsyncDelegation) Delegation {
	var st storedValues
	d := Delegation{
		ID:                r.DelegationID,
		OriginSession:     r.OriginSession,
		OriginUISessionID: r.OriginUiSessionID,
		ParentSessionID:   r.ParentSessionID,
		State:             r.State,
		DispatchedAt:      Timestamp(st.real("dispatched_at", r.DispatchedAt)),
		CompletedAt:       (*Timestamp)(st.optionalReal("completed_at", r.CompletedAt)),
		UpdatedAt:         Timestamp(st.real("updated_at", r.UpdatedAt)),
		Event:             rawJSON(r.EventJSON),
		Result:            rawJSON(r.ResultJSON),
		DeliveryState:     r.DeliveryState,
		DeliveryAttempts:  st.count("delivery_attempts", r.DeliveryAttempts),
		DeliveredAt:       (*Timestamp)(st.optionalReal("delivered_at", r.DeliveredAt)),
		OwnerPID:          st.optionalInt("owner_pid", r.OwnerPID),
		OwnerStartedAt:    st.optionalInt("owner_started_at", r.OwnerStartedAt),
		Task:              rawJSON(r.TaskJSON),
		DeliveryClaim:     r.DeliveryClaim,
		DeliveryClaimedAt: (*Timestamp)(st.optionalReal("delivery_claimed_at", r.DeliveryClaimedAt)),
	}
	d.Stored = st
	return d
}

// DelegationDispatch describes a delegation being dispatched.
type DelegationDispatch struct {
	// ID is the delegation id (upstream's "deleg_" + 8 hex digits);
	// required.
	ID string
	// OriginSession is the gateway session key to route the completion to;
	// "" for the CLI.
	OriginSession     string
	OriginUISessionID string
	// ParentSessionID is the dispatching agent's session; "" is NULL.
	ParentSessionID string
	// DispatchedAt is when it was dispatched; zero means now.
	DispatchedAt Timestamp
	// OwnerPID is the process that runs it (0 is NULL, which
	// RecoverAbandonedDelegations counts as dead); OwnerStartedAt that
	// process's start time as the caller's liveness check measures it
	// (nil when unknown).
	OwnerPID       int64
	OwnerStartedAt *int64
	// Task is the task as JSON (upstream: an object with goal, goals,
	// context, toolsets, role, model and is_batch, each when known); nil
	// stores {}.
	Task json.RawMessage
}

// pythonJSON re-encodes a caller's JSON value in Python's json.dumps
// format, or returns ErrInvalidJSON naming field.
func pythonJSON(field string, raw json.RawMessage) (string, error) {
	text, err := pyjson.Encode(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", field, err) // err matches ErrInvalidJSON
	}
	return text, nil
}

// DispatchDelegation records delegation d as running and due for delivery
// once complete, with no delivery attempt yet. A row with the same id is
// replaced whole, as upstream. In the same transaction it applies the
// default retention (PruneDelegations with a zero DelegationRetention), as
// upstream prunes after every dispatch.
//
// It returns ErrEmptyArgument for an empty ID, ErrInvalidJSON when Task is
// not one JSON value, ErrInvalidText, ErrBusy or ErrClosed; on error
// nothing is written.
func (s *Store) DispatchDelegation(ctx context.Context, d DelegationDispatch) (err error) {
	defer wrapOn(&err, "dispatch delegation", d.ID)
	if d.ID == "" {
		return fmt.Errorf("delegation id: %w", ErrEmptyArgument)
	}
	if err := checkTexts("delegation id", d.ID, "origin session", d.OriginSession,
		"origin ui session id", d.OriginUISessionID, "parent session id", d.ParentSessionID); err != nil {
		return err
	}
	task := "{}"
	if d.Task != nil {
		if task, err = pythonJSON("task", d.Task); err != nil {
			return err
		}
	}
	pid := sqlnum.Int{}
	if d.OwnerPID != 0 {
		pid = sqlnum.IntOf(d.OwnerPID)
	}
	started := sqlnum.Int{}
	if d.OwnerStartedAt != nil {
		started = sqlnum.IntOf(*d.OwnerStartedAt)
	}
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		now := s.now()
		at := float64(d.DispatchedAt)
		if at == 0 {
			at = now
		}
		if err := s.q.DelegationDispatch(ctx, tx, db.DelegationDispatchParams{
			DelegationID: d.ID, OriginSession: d.OriginSession, OriginUiSessionID: d.OriginUISessionID,
			ParentSessionID: nullable(d.ParentSessionID), DispatchedAt: sqlnum.RealOf(at), UpdatedAt: sqlnum.RealOf(now),
			OwnerPID: pid, OwnerStartedAt: started, TaskJSON: &task,
		}); err != nil {
			return err
		}
		_, err := s.pruneDelegations(ctx, tx, DelegationRetention{}, now)
		return err
	})
}

// DelegationCompletion is the terminal result of a delegation.
type DelegationCompletion struct {
	// Status is the terminal state ("completed", "error", "interrupted",
	// …); "" means DelegationCompleted.
	Status string
	// CompletedAt is when it finished; zero means now.
	CompletedAt Timestamp
	// Event is the completion event the consumers deliver (required);
	// Result the runner's result (nil stores NULL). Both must be one JSON
	// value each.
	Event, Result json.RawMessage
}

// CompleteDelegation records delegation id's terminal result and makes it
// due for delivery (again).
//
// It returns ErrDelegationNotFound, ErrEmptyArgument without an Event,
// ErrInvalidJSON, ErrInvalidText, ErrBusy or ErrClosed; on error nothing is
// written.
func (s *Store) CompleteDelegation(ctx context.Context, id string, c DelegationCompletion) (err error) {
	defer wrapOn(&err, "complete delegation", id)
	if err := checkText("status", c.Status); err != nil {
		return err
	}
	if c.Status == "" {
		c.Status = DelegationCompleted
	}
	if len(c.Event) == 0 {
		return fmt.Errorf("event: %w", ErrEmptyArgument)
	}
	event, err := pythonJSON("event", c.Event)
	if err != nil {
		return err
	}
	var result *string
	if c.Result != nil {
		text, err := pythonJSON("result", c.Result)
		if err != nil {
			return err
		}
		result = &text
	}
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		now := s.now()
		at := float64(c.CompletedAt)
		if at == 0 {
			at = now
		}
		n, err := s.q.DelegationComplete(ctx, tx, db.DelegationCompleteParams{
			State: c.Status, CompletedAt: sqlnum.RealOf(at), UpdatedAt: sqlnum.RealOf(now),
			EventJSON: &event, ResultJSON: result, DelegationID: id,
		})
		if err == nil && n == 0 {
			err = ErrDelegationNotFound
		}
		return err
	})
}

// DeleteDelegation removes delegation id (upstream does so when the
// dispatch could not be scheduled).
//
// It returns ErrDelegationNotFound, ErrBusy or ErrClosed.
func (s *Store) DeleteDelegation(ctx context.Context, id string) (err error) {
	defer wrapOn(&err, "delete delegation", id)
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		n, err := s.q.DelegationDelete(ctx, tx, id)
		if err == nil && n == 0 {
			err = ErrDelegationNotFound
		}
		return err
	})
}

// DelegationRetention bounds the delegation history PruneDelegations
// keeps; a zero field means its default.
type DelegationRetention struct {
	// MaxAge is how long a delivered row is kept after its last change.
	// Zero: DefaultDelegationMaxAge.
	MaxAge time.Duration
	// MaxTerminal is how many terminal rows are kept; the oldest are
	// removed, delivered ones first. Zero: DefaultMaxTerminalDelegations.
	MaxTerminal int
	// MaxPending is how many terminal rows still pending delivery are
	// kept; the oldest are removed. Zero: DefaultMaxPendingDelegations.
	MaxPending int
}

// PruneDelegations bounds the delegation history by r, in one
// transaction: it removes the delivered rows older than r.MaxAge, then
// the oldest terminal rows beyond r.MaxTerminal (delivered ones first), then
// the oldest terminal rows pending delivery beyond r.MaxPending. Rows in
// flight are never removed. It returns how many rows it removed.
//
// It returns ErrBusy or ErrClosed.
func (s *Store) PruneDelegations(ctx context.Context, r DelegationRetention) (_ int64, err error) {
	defer wrap(&err, "prune delegations")
	var n int64
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		var err error
		n, err = s.pruneDelegations(ctx, tx, r, s.now())
		return err
	})
	return n, err
}

// pruneDelegations is PruneDelegations inside a write transaction, at now.
func (s *Store) pruneDelegations(ctx context.Context, tx backend.Tx, r DelegationRetention, now float64) (int64, error) {
	if r.MaxAge <= 0 {
		r.MaxAge = DefaultDelegationMaxAge
	}
	if r.MaxTerminal <= 0 {
		r.MaxTerminal = DefaultMaxTerminalDelegations
	}
	if r.MaxPending <= 0 {
		r.MaxPending = DefaultMaxPendingDelegations
	}
	removed, err := s.q.DelegationPruneDelivered(ctx, tx, sqlnum.RealOf(now-r.MaxAge.Seconds()))
	if err != nil {
		return 0, err
	}
	for _, c := range []struct {
		count func(context.Context, backend.Tx) (int64, error)
		prune func(context.Context, backend.Tx, int64) (int64, error)
		keep  int
	}{
		{s.q.DelegationCountTerminal, s.q.DelegationPruneTerminal, r.MaxTerminal},
		{s.q.DelegationCountPending, s.q.DelegationPrunePending, r.MaxPending},
	} {
		total, err := c.count(ctx, tx)
		if err != nil {
			return 0, err
		}
		if excess := total - int64(c.keep); excess > 0 {
			n, err := c.prune(ctx, tx, excess)
			if err != nil {
				return 0, err
			}
			removed += n
		}
	}
	return removed, nil
}

// GetDelegation returns delegation id.
//
// It returns ErrDelegationNotFound or ErrClosed.
func (s *Store) GetDelegation(ctx context.Context, id string) (_ *Delegation, err error) {
	defer wrapOn(&err, "get delegation", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (*Delegation, error) {
		r, err := s.q.DelegationGet(ctx, q, id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrDelegationNotFound
		}
		if err != nil {
			return nil, err
		}
		d := delegationFromDB(r)
		return &d, nil
	})
}

// ListDelegations returns every delegation, oldest dispatch first (ties by
// id).
//
// It returns ErrClosed.
func (s *Store) ListDelegations(ctx context.Context) (_ []Delegation, err error) {
	defer wrap(&err, "list delegations")
	return s.delegations(ctx, s.q.DelegationList)
}

// UndeliveredDelegations returns the completions due for delivery (not
// running, delivery pending, with an event), oldest completion first (ties
// by id): what a restarted process puts back on its queue. Call
// RecoverAbandonedDelegations first, as upstream does, so that
// delegations whose owner died are among them.
//
// It returns ErrClosed.
func (s *Store) UndeliveredDelegations(ctx context.Context) (_ []Delegation, err error) {
	defer wrap(&err, "list undelivered delegations")
	return s.delegations(ctx, s.q.DelegationUndelivered)
}

// delegations runs a listing query and converts its rows.
func (s *Store) delegations(ctx context.Context, query func(context.Context, backend.Tx) ([]db.AsyncDelegation, error)) ([]Delegation, error) {
	return read(s, ctx, func(ctx context.Context, q backend.Tx) ([]Delegation, error) {
		rows, err := query(ctx, q)
		return convertRows(rows, err, delegationFromDB)
	})
}
