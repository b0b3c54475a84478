package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// ErrCommitUnknown is the error of a write whose connection was lost after
// COMMIT was sent: the server may or may not have committed it, so it is
// not run again (that could apply it twice). Read back to find out.
var ErrCommitUnknown = errors.New("the connection was lost while committing: the write may or may not have been applied")

// Beginner is what WriteTx begins its transactions on: a *pgxpool.Pool or
// a *pgx.Conn.
type Beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// WriteTx runs fn in one READ COMMITTED transaction on b and commits it.
// begin, when not empty, is the text that opens the transaction instead
// of BEGIN ISOLATION LEVEL READ COMMITTED (it must open one at that
// level; it may take a lock in the same round trip).
// When a statement or the COMMIT fails with a serialization failure, a
// deadlock or a lock timeout (IsRetryable), or the connection is lost
// before COMMIT was sent, the transaction is rolled back and fn runs
// again, up to policy.Attempts times in all, sleeping a random
// MinDelay–MaxDelay between attempts (the SQLite engine's policy, so the
// store's WriteAttempts options mean the same). fn must therefore compute
// everything inside it.
//
// It returns nil once COMMIT returned; fn's error (classified, see
// Classify) when fn failed otherwise; an error matching sqlite.ErrBusy
// when every attempt met contention; ErrCommitUnknown when the connection
// was lost after COMMIT was sent; or ctx's error.
func WriteTx(ctx context.Context, b Beginner, policy sqlite.Retry, begin string, fn func(ctx context.Context, tx pgx.Tx) error) error {
	attempts := max(policy.Attempts, 1)
	for attempt := 1; ; attempt++ {
		err, outcome := writeOnce(ctx, b, begin, fn)
		switch {
		case err == nil:
			return nil
		case outcome == commitUnknown:
			return fmt.Errorf("%w: %w", ErrCommitUnknown, err)
		case outcome != lost && !IsRetryable(err), ctx.Err() != nil:
			return Classify(err)
		case attempt >= attempts:
			return fmt.Errorf("%w: gave up after %d attempts: %w", sqlite.ErrBusy, attempt, err)
		}
		if policy.OnRetry != nil {
			policy.OnRetry(attempt, err)
		}
		if werr := sleep(ctx, jitter(policy)); werr != nil {
			return fmt.Errorf("%w (last attempt: %w)", werr, err)
		}
	}
}

// How an attempt failed, beyond its error.
type outcome int

const (
	refused       outcome = iota // the server answered: err says why
	lost                         // the connection died before COMMIT was sent: nothing was applied
	commitUnknown                // the connection died after COMMIT was sent
)

// writeOnce is one attempt of WriteTx. A connection that pgx closed under
// a statement (a network failure: pgx closes the connection on any error
// that leaves the protocol out of step) is lost; the server then ends the
// transaction itself.
func writeOnce(ctx context.Context, b Beginner, begin string, fn func(ctx context.Context, tx pgx.Tx) error) (error, outcome) {
	tx, err := Begin(ctx, b, pgx.TxOptions{IsoLevel: pgx.ReadCommitted, BeginQuery: begin})
	if err != nil {
		if IsConnectionLost(err) {
			return err, lost
		}
		return err, refused
	}
	if err := fn(ctx, tx); err != nil {
		closed := tx.Conn().IsClosed()
		tx.Rollback(context.WithoutCancel(ctx))
		if closed || IsConnectionLost(err) {
			return err, lost
		}
		return err, refused
	}
	if err := tx.Commit(ctx); err != nil {
		switch {
		case pgconn.SafeToRetry(err):
			return fmt.Errorf("commit: %w", err), lost
		case tx.Conn().IsClosed():
			return fmt.Errorf("commit: %w", err), commitUnknown
		}
		return fmt.Errorf("commit: %w", err), refused
	}
	return nil, refused
}

// jitter returns a uniformly random delay in [MinDelay, MaxDelay].
func jitter(p sqlite.Retry) time.Duration {
	lo, hi := p.MinDelay, p.MaxDelay
	if hi <= lo {
		return max(lo, 0)
	}
	return lo + rand.N(hi-lo+1)
}

// sleep waits for d or until ctx is done, returning ctx's error then.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
