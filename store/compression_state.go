package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// A session's compression state on its row: the cooldown after a failed
// compression (compression_failure_cooldown_until, epoch seconds, and
// compression_failure_error) and the count of deterministic fallbacks in a
// row (compression_fallback_streak). Upstream ignores these calls for an
// unknown session; here they return ErrSessionNotFound.

// CompressionCooldown is a session's running compression-failure cooldown.
type CompressionCooldown struct {
	// Until is when the cooldown ends, as stored.
	Until Timestamp
	// Remaining is Until minus the store clock's now: always positive.
	Remaining time.Duration
	// Error is the failure recorded with it ("" when none was).
	Error string
}

// RecordCompressionFailureCooldown records that compression of session id
// must not be tried again before until, because of errText ("" stores
// NULL). It replaces any cooldown recorded before. A NaN until is stored
// as NULL, as SQLite stores NaN: no cooldown.
//
// It returns ErrSessionNotFound, ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) RecordCompressionFailureCooldown(ctx context.Context, id string, until Timestamp, errText string) (err error) {
	defer wrapOn(&err, "record compression cooldown", id)
	if err := checkTexts("error", errText); err != nil {
		return err
	}
	return s.setCooldown(ctx, id, sqlnum.RealOf(float64(until)), nullable(errText))
}

// ClearCompressionFailureCooldown removes session id's cooldown and its
// error.
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) ClearCompressionFailureCooldown(ctx context.Context, id string) (err error) {
	defer wrapOn(&err, "clear compression cooldown", id)
	return s.setCooldown(ctx, id, sqlnum.Real{}, nil)
}

// setCooldown writes both cooldown columns of session id.
func (s *Store) setCooldown(ctx context.Context, id string, until sqlnum.Real, errText *string) error {
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.CompressionCooldownSet(ctx, tx, db.CompressionCooldownSetParams{CooldownUntil: until, Error: errText, ID: id})
	})
}

// CompressionFailureCooldown returns session id's cooldown while it runs,
// or nil when none is recorded or it has ended (until <= now, by the store
// clock).
//
// It returns ErrSessionNotFound or ErrClosed.
func (s *Store) CompressionFailureCooldown(ctx context.Context, id string) (_ *CompressionCooldown, err error) {
	defer wrapOn(&err, "read compression cooldown", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (*CompressionCooldown, error) {
		r, err := s.q.CompressionCooldownGet(ctx, q, id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrSessionNotFound
		}
		if err != nil || !r.CompressionFailureCooldownUntil.Valid {
			return nil, err
		}
		until, now := r.CompressionFailureCooldownUntil.Float64, s.now()
		if until <= now {
			return nil, nil
		}
		return &CompressionCooldown{
			Until:     Timestamp(until),
			Remaining: secondsDuration(until - now),
			Error:     deref(r.CompressionFailureError),
		}, nil
	})
}

// secondsDuration converts a positive number of seconds to a Duration,
// the longest Duration for one beyond its range (an infinite until).
func secondsDuration(sec float64) time.Duration {
	ns := sec * float64(time.Second)
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// CompressionFallbackStreak returns session id's deterministic-fallback
// streak: 0 or more (a negative stored value reads as 0).
//
// It returns ErrSessionNotFound or ErrClosed.
func (s *Store) CompressionFallbackStreak(ctx context.Context, id string) (_ int64, err error) {
	defer wrapOn(&err, "read compression fallback streak", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (int64, error) {
		n, err := s.q.CompressionStreakGet(ctx, q, id)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, ErrSessionNotFound
		}
		return max(0, n.Int64), err
	})
}

// SetCompressionFallbackStreak stores session id's deterministic-fallback
// streak, clamped to 0 when n is negative.
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) SetCompressionFallbackStreak(ctx context.Context, id string, n int64) (err error) {
	defer wrapOn(&err, "set compression fallback streak", id)
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.CompressionStreakSet(ctx, tx, db.CompressionStreakSetParams{Streak: sqlnum.IntOf(max(0, n)), ID: id})
	})
}
