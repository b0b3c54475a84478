package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// Compression locks (compression_locks) keep two compressions of one
// session from racing: each would end the session and start its own
// child, forking the lineage. A lock is a row (session id, holder,
// acquired_at, expires_at), times in epoch seconds from the store's clock
// (Options.Now); it has expired when expires_at < now, so a lock is still
// held at the instant it expires. An expired lock is only hidden until the
// next acquire of its session deletes it. Upstream Hermes (tools in other
// processes) takes the same locks in the same table, so a Go compressor and
// a Python one exclude each other.
//
// Where this differs from upstream's SessionDB (upstream-v21.md §8 defect
// 7), on purpose: an acquire or refresh with a negative TTL is refused with
// ErrInvalidTTL (upstream writes an already expired lock and reports it
// acquired); an acquire for a session that does not exist is refused with
// ErrSessionNotFound (upstream has no foreign key and locks any string);
// and an empty holder is refused with ErrEmptyArgument. Deleting a session
// leaves its lock row behind, as upstream: the row expires, a later acquire
// for that id finds no session, and ReleaseCompressionLock still removes it.

// DefaultCompressionLockTTL is the lease a zero TTL means: upstream's
// ttl_seconds=300.0 default.
const DefaultCompressionLockTTL = 300 * time.Second

// lockLease returns the lease in seconds for ttl: the default for 0,
// ErrInvalidTTL for a negative one.
func lockLease(ttl time.Duration) (float64, error) {
	switch {
	case ttl < 0:
		return 0, fmt.Errorf("%v: %w", ttl, ErrInvalidTTL)
	case ttl == 0:
		ttl = DefaultCompressionLockTTL
	}
	return ttl.Seconds(), nil
}

// checkLockArgs validates the holder and the UTF-8 of both arguments.
func checkLockArgs(sessionID, holder string) error {
	if holder == "" {
		return fmt.Errorf("holder: %w", ErrEmptyArgument)
	}
	return checkTexts("session id", sessionID, "holder", holder)
}

// TryAcquireCompressionLock tries to take session sessionID's compression
// lock for holder with a lease of ttl (0 means DefaultCompressionLockTTL).
// In one write transaction it deletes the session's expired lock, inserts
// holder's lock unless one exists, and reads the holder back: it returns
// true when holder holds the lock, false when another holder's unexpired
// lock stands (the caller must not compress). A holder that acquires again
// while it holds the lock gets true and its lease is NOT extended (use
// RefreshCompressionLock), as upstream.
//
// It returns ErrSessionNotFound when the session does not exist,
// ErrEmptyArgument for an empty holder, ErrInvalidTTL for a negative ttl,
// ErrInvalidText, ErrBusy or ErrClosed; on error nothing is written.
func (s *Store) TryAcquireCompressionLock(ctx context.Context, sessionID, holder string, ttl time.Duration) (_ bool, err error) {
	defer wrapOn(&err, "acquire compression lock", sessionID)
	if err := checkLockArgs(sessionID, holder); err != nil {
		return false, err
	}
	lease, err := lockLease(ttl)
	if err != nil {
		return false, err
	}
	var acquired bool
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		acquired = false
		if err := s.mustExist(ctx, tx, sessionID); err != nil {
			return err
		}
		now := s.now()
		if _, err := s.q.CompressionLockDeleteExpired(ctx, tx, db.CompressionLockDeleteExpiredParams{
			SessionID: sessionID, Now: sqlnum.RealOf(now),
		}); err != nil {
			return err
		}
		if _, err := s.q.CompressionLockInsert(ctx, tx, db.CompressionLockInsertParams{
			SessionID: sessionID, Holder: holder,
			AcquiredAt: sqlnum.RealOf(now), ExpiresAt: sqlnum.RealOf(now + lease),
		}); err != nil {
			return err
		}
		owner, err := s.q.CompressionLockOwner(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		acquired = owner == holder
		return nil
	})
	return acquired, err
}

// RefreshCompressionLock extends holder's lock on session sessionID to
// expire ttl from now (0 means DefaultCompressionLockTTL). It returns true
// when it did; false when holder does not hold an unexpired lock (it never
// held it, released it, or let it expire: an expired lock stays
// reclaimable).
//
// It returns ErrEmptyArgument for an empty holder, ErrInvalidTTL for a
// negative ttl, ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) RefreshCompressionLock(ctx context.Context, sessionID, holder string, ttl time.Duration) (_ bool, err error) {
	defer wrapOn(&err, "refresh compression lock", sessionID)
	if err := checkLockArgs(sessionID, holder); err != nil {
		return false, err
	}
	lease, err := lockLease(ttl)
	if err != nil {
		return false, err
	}
	var n int64
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		now := s.now()
		var err error
		n, err = s.q.CompressionLockRefresh(ctx, tx, db.CompressionLockRefreshParams{
			ExpiresAt: sqlnum.RealOf(now + lease), SessionID: sessionID, Holder: holder, Now: sqlnum.RealOf(now),
		})
		return err
	})
	return n > 0, err
}

// ReleaseCompressionLock removes session sessionID's lock if holder holds
// it, expired or not. Releasing a lock another holder holds, or one that
// does not exist, changes nothing and is not an error (a late compressor
// must not clobber a newer holder's lock). It works for a session that no
// longer exists.
//
// It returns ErrEmptyArgument for an empty holder, ErrInvalidText, ErrBusy
// or ErrClosed.
func (s *Store) ReleaseCompressionLock(ctx context.Context, sessionID, holder string) (err error) {
	defer wrapOn(&err, "release compression lock", sessionID)
	if err := checkLockArgs(sessionID, holder); err != nil {
		return err
	}
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		_, err := s.q.CompressionLockRelease(ctx, tx, db.CompressionLockReleaseParams{SessionID: sessionID, Holder: holder})
		return err
	})
}

// CompressionLockHolder returns the holder of session sessionID's
// unexpired compression lock and true, or "", false when there is none (an
// expired lock is not reported, and not deleted). It does not check that
// the session exists.
//
// It returns ErrClosed.
func (s *Store) CompressionLockHolder(ctx context.Context, sessionID string) (_ string, _ bool, err error) {
	defer wrapOn(&err, "read compression lock", sessionID)
	type result struct {
		holder string
		ok     bool
	}
	r, err := readOne(s, ctx, func(ctx context.Context, q backend.Tx) (result, error) {
		h, err := s.q.CompressionLockHolder(ctx, q, db.CompressionLockHolderParams{SessionID: sessionID, Now: sqlnum.RealOf(s.now())})
		if errors.Is(err, sql.ErrNoRows) {
			return result{}, nil
		}
		return result{h, err == nil}, err
	})
	return r.holder, r.ok, err
}
