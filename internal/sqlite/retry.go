package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// The original's write policy (hermes_state.py, PR #3385): 15 attempts of the
// whole transaction, 20–150 ms of random sleep between them so that competing
// writers do not retry in lockstep, as SQLite's own busy handler makes them.
const (
	DefaultAttempts = 15
	DefaultMinDelay = 20 * time.Millisecond
	DefaultMaxDelay = 150 * time.Millisecond
)

// Retry runs an operation again when it fails because another connection holds
// the database lock. The zero value is not useful; use [DefaultRetry] or fill
// every field.
type Retry struct {
	// Attempts is the number of times the operation runs at most (not the
	// number of re-runs). Values below 1 mean 1.
	Attempts int
	// MinDelay and MaxDelay bound the uniformly random sleep between attempts.
	MinDelay, MaxDelay time.Duration
	// OnRetry, when set, is called after each failed attempt that will be
	// retried, with the 1-based attempt number and its error.
	OnRetry func(attempt int, err error)
}

// DefaultRetry returns the original's policy: 15 attempts, 20–150 ms jitter.
func DefaultRetry() Retry {
	return Retry{Attempts: DefaultAttempts, MinDelay: DefaultMinDelay, MaxDelay: DefaultMaxDelay}
}

// Do calls fn until it succeeds, fails with an error that is not [IsBusy], the
// attempts run out, or ctx is done. It returns nil on success; fn's error
// unchanged when it is not a busy error; an error matching [ErrBusy] and
// wrapping the last failure when every attempt was busy; or ctx's error
// (wrapping the last failure) when ctx ends while waiting to retry.
func (r Retry) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	attempts := max(r.Attempts, 1)
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if err == nil || !IsBusy(err) {
			return err
		}
		if attempt >= attempts {
			return fmt.Errorf("%w: gave up after %d attempts: %w", ErrBusy, attempt, err)
		}
		if r.OnRetry != nil {
			r.OnRetry(attempt, err)
		}
		if werr := sleep(ctx, r.jitter()); werr != nil {
			return fmt.Errorf("%w (last attempt: %w)", werr, err)
		}
	}
}

// jitter returns a uniformly random delay in [MinDelay, MaxDelay].
func (r Retry) jitter() time.Duration {
	lo, hi := r.MinDelay, r.MaxDelay
	if hi <= lo {
		return max(lo, 0)
	}
	return lo + rand.N(hi-lo+1)
}

// sleep waits for d or until ctx is done, returning ctx's error in that case.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
