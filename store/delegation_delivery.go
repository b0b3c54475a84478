package store

import (
	"context"
	"fmt"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// Delivery of a completed delegation: consumers (the CLI, the gateway, the
// TUI, in any process) compete for a completion with a claim, a free-text
// id of the consumer (upstream: "consumer:pid:uuid"). A claim lasts
// DelegationClaimTTL; an older one may be taken over, so a consumer that
// died does not keep the completion from being delivered. Each claim
// counts a delivery attempt.

// DelegationClaimTTL is how long a delivery claim excludes other
// consumers: upstream's 300 seconds.
const DelegationClaimTTL = 5 * time.Minute

// checkClaim validates a delivery claim.
func checkClaim(claim string) error {
	if claim == "" {
		return fmt.Errorf("claim: %w", ErrEmptyArgument)
	}
	return checkText("claim", claim)
}

// ClaimDelegationDelivery claims the delivery of delegation id's
// completion for claim. It returns true when the caller may deliver it:
// the completion is pending delivery and unclaimed, or its claim is older
// than DelegationClaimTTL; the claim is recorded with the time and the
// attempt counted. It returns false when it is delivered already, or
// another consumer's claim is younger. It also returns true for an id with
// no row, as upstream: an event from before durable dispatch has no
// delivery to coordinate.
//
// It returns ErrEmptyArgument for an empty claim, ErrInvalidText, ErrBusy
// or ErrClosed.
func (s *Store) ClaimDelegationDelivery(ctx context.Context, id, claim string) (_ bool, err error) {
	defer wrapOn(&err, "claim delegation delivery", id)
	if err := checkClaim(claim); err != nil {
		return false, err
	}
	var claimed bool
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		claimed = false
		exists, err := s.q.DelegationExists(ctx, tx, id)
		if err != nil {
			return err
		}
		if !exists {
			claimed = true
			return nil
		}
		now := s.now()
		n, err := s.q.DelegationClaim(ctx, tx, db.DelegationClaimParams{
			Claim: &claim, Now: sqlnum.RealOf(now), DelegationID: id,
			StaleBefore: sqlnum.RealOf(now - DelegationClaimTTL.Seconds()),
		})
		claimed = n == 1
		return err
	})
	return claimed, err
}

// ReleaseDelegationDelivery gives claim's claim on delegation id back after
// a failed delivery, so another consumer may deliver it at once. It returns
// false when claim does not hold it (or it was delivered).
//
// It returns ErrEmptyArgument for an empty claim, ErrInvalidText, ErrBusy
// or ErrClosed.
func (s *Store) ReleaseDelegationDelivery(ctx context.Context, id, claim string) (_ bool, err error) {
	defer wrapOn(&err, "release delegation delivery", id)
	if err := checkClaim(claim); err != nil {
		return false, err
	}
	return s.delivery(ctx, func(ctx context.Context, tx backend.Tx, now sqlnum.Real) (int64, error) {
		return s.q.DelegationRelease(ctx, tx, db.DelegationReleaseParams{Now: now, DelegationID: id, Claim: &claim})
	})
}

// CompleteDelegationDelivery records that claim delivered delegation id's
// completion, and clears the claim. It returns false when claim does not
// hold it (another consumer took it over, or it was delivered).
//
// It returns ErrEmptyArgument for an empty claim, ErrInvalidText, ErrBusy
// or ErrClosed.
func (s *Store) CompleteDelegationDelivery(ctx context.Context, id, claim string) (_ bool, err error) {
	defer wrapOn(&err, "complete delegation delivery", id)
	if err := checkClaim(claim); err != nil {
		return false, err
	}
	return s.delivery(ctx, func(ctx context.Context, tx backend.Tx, now sqlnum.Real) (int64, error) {
		return s.q.DelegationCompleteDelivery(ctx, tx, db.DelegationCompleteDeliveryParams{Now: now, DelegationID: id, Claim: &claim})
	})
}

// MarkDelegationDelivered records that delegation id's completion was
// delivered, without a claim (a claim it has stays recorded, as upstream).
// It returns false when it was delivered already or does not exist.
//
// It returns ErrBusy or ErrClosed.
func (s *Store) MarkDelegationDelivered(ctx context.Context, id string) (_ bool, err error) {
	defer wrapOn(&err, "mark delegation delivered", id)
	return s.delivery(ctx, func(ctx context.Context, tx backend.Tx, now sqlnum.Real) (int64, error) {
		return s.q.DelegationMarkDelivered(ctx, tx, db.DelegationMarkDeliveredParams{Now: now, DelegationID: id})
	})
}

// delivery runs one delivery UPDATE at now and reports whether it changed
// the row.
func (s *Store) delivery(ctx context.Context, fn func(context.Context, backend.Tx, sqlnum.Real) (int64, error)) (bool, error) {
	var n int64
	err := s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		var err error
		n, err = fn(ctx, tx, sqlnum.RealOf(s.now()))
		return err
	})
	return n == 1, err
}
