package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// The /handoff state machine on a session row (handoff_state,
// handoff_platform, handoff_error): the CLI requests a handoff to a
// messaging platform (pending), the gateway's watcher claims it (running)
// and completes or fails it. A new request is accepted only when no handoff
// is in flight: from no state, completed or failed.

// The handoff states (sessions.handoff_state).
const (
	HandoffPending   = "pending"   // requested by the CLI, not yet claimed
	HandoffRunning   = "running"   // claimed by a gateway watcher
	HandoffCompleted = "completed" // delivered to the platform
	HandoffFailed    = "failed"    // given up; Handoff.Error says why
)

// MaxHandoffErrorLength is how many code points of a failure reason
// FailHandoff keeps (the original's error[:500]).
const MaxHandoffErrorLength = 500

// Handoff is a session's handoff columns; "" for NULL.
type Handoff struct {
	State    string // HandoffPending, HandoffRunning, HandoffCompleted, HandoffFailed or ""
	Platform string
	Error    string
}

// RequestHandoff marks session id pending for a handoff to platform (and
// clears the last failure). It returns true when it did, false when a
// handoff is already in flight (pending or running), which it leaves as it
// is.
//
// It returns ErrSessionNotFound, ErrEmptyArgument for an empty platform,
// ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) RequestHandoff(ctx context.Context, id, platform string) (_ bool, err error) {
	defer wrapOn(&err, "request handoff", id)
	if platform == "" {
		return false, fmt.Errorf("platform: %w", ErrEmptyArgument)
	}
	if err := checkText("platform", platform); err != nil {
		return false, err
	}
	return s.transition(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.HandoffRequest(ctx, tx, db.HandoffRequestParams{Platform: &platform, ID: id})
	})
}

// ClaimHandoff moves session id's handoff from pending to running. It
// returns true when it did, false when the handoff was not pending (another
// watcher claimed it first, or none was requested): exactly one claimant
// of a pending handoff gets true.
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) ClaimHandoff(ctx context.Context, id string) (_ bool, err error) {
	defer wrapOn(&err, "claim handoff", id)
	return s.transition(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.HandoffClaim(ctx, tx, id)
	})
}

// transition runs one conditional handoff UPDATE of session id: true when
// it changed the row, false when its condition excluded an existing
// session, ErrSessionNotFound when there is none.
func (s *Store) transition(ctx context.Context, id string, fn func(context.Context, backend.Tx) (int64, error)) (bool, error) {
	var changed bool
	err := s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		n, err := fn(ctx, tx)
		if err != nil {
			return err
		}
		changed = n > 0
		if changed {
			return nil
		}
		return s.mustExist(ctx, tx, id)
	})
	return changed && err == nil, err
}

// CompleteHandoff marks session id's handoff completed and clears its
// failure, whatever its state was (as the original).
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) CompleteHandoff(ctx context.Context, id string) (err error) {
	defer wrapOn(&err, "complete handoff", id)
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.HandoffComplete(ctx, tx, id)
	})
}

// FailHandoff marks session id's handoff failed because of reason, of
// which the first MaxHandoffErrorLength code points are kept, whatever its
// state was (as the original).
//
// It returns ErrSessionNotFound, ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) FailHandoff(ctx context.Context, id, reason string) (err error) {
	defer wrapOn(&err, "fail handoff", id)
	if err := checkText("reason", reason); err != nil {
		return err
	}
	reason = pytext.Truncate(reason, MaxHandoffErrorLength)
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.HandoffFail(ctx, tx, db.HandoffFailParams{Error: &reason, ID: id})
	})
}

// HandoffState returns session id's handoff columns (all "" when no
// handoff was ever requested).
//
// It returns ErrSessionNotFound or ErrClosed.
func (s *Store) HandoffState(ctx context.Context, id string) (_ Handoff, err error) {
	defer wrapOn(&err, "read handoff", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (Handoff, error) {
		r, err := s.q.HandoffGet(ctx, q, id)
		if errors.Is(err, sql.ErrNoRows) {
			return Handoff{}, ErrSessionNotFound
		}
		return Handoff{State: deref(r.HandoffState), Platform: deref(r.HandoffPlatform), Error: deref(r.HandoffError)}, err
	})
}

// ListPendingHandoffs returns the sessions whose handoff is pending, oldest
// start first (ties by id), for the gateway's watcher.
//
// It returns ErrClosed.
func (s *Store) ListPendingHandoffs(ctx context.Context) (_ []Session, err error) {
	defer wrap(&err, "list pending handoffs")
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]Session, error) {
		rows, err := s.q.HandoffListPending(ctx, q)
		return convertRows(rows, err, sessionFromDB)
	})
}
