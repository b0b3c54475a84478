package store

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// Stats counts what this Store's write helper did since Open.
type Stats struct {
	// Writes is the number of committed write transactions.
	Writes uint64
	// Retries is the number of attempts that found the database locked and
	// were run again.
	Retries uint64
	// BusyFailures is the number of writes that gave up with ErrBusy.
	BusyFailures uint64
	// Checkpoints is the number of automatic PASSIVE checkpoints run
	// (every Options.CheckpointEvery writes).
	Checkpoints uint64
	// Optimizes is the number of automatic full-text index merges run
	// (OptimizeFTS every Options.OptimizeEvery writes).
	Optimizes uint64
}

// Stats returns the write helper's counters. It works after Close too.
func (s *Store) Stats() Stats {
	return Stats{
		Writes:       s.stats.writes.Load(),
		Retries:      s.stats.retries.Load(),
		BusyFailures: s.stats.busy.Load(),
		Checkpoints:  s.stats.checkpoints.Load(),
		Optimizes:    s.stats.optimizes.Load(),
	}
}

// write is the one way every write reaches the database. It runs fn in one
// BEGIN IMMEDIATE transaction on the writer connection and commits it.
//
// When BEGIN, a statement or COMMIT fails with SQLITE_BUSY or SQLITE_LOCKED
// (classified by error code), the transaction is rolled back and the whole of
// fn runs again, up to Options.WriteAttempts times, sleeping a random
// RetryMinDelay–RetryMaxDelay between attempts; fn must therefore be safe to
// run more than once (compute everything inside it). Any other error, or ctx
// ending, rolls back and returns at once, leaving the database as it was.
// After every CheckpointEvery-th successful write a PASSIVE checkpoint runs,
// and after every OptimizeEvery-th the full-text indexes are merged
// (optimizeFTS), as upstream's _execute_write does; neither counts as a
// write, and a failure of either is logged, never returned: the write
// itself committed.
//
// It returns fn's error, an error matching ErrBusy when the attempts ran out,
// ErrReadOnly on a read-only store, or ErrClosed.
func (s *Store) write(ctx context.Context, fn func(ctx context.Context, tx db.DBTX) error) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	w, err := s.writer()
	if err != nil {
		return err
	}
	err = sqlite.WriteTx(ctx, w, s.retry, func(ctx context.Context, tx *sql.Tx) error {
		return fn(ctx, tx)
	})
	if err != nil {
		if errors.Is(err, sqlite.ErrBusy) {
			s.stats.busy.Add(1)
		}
		return err
	}
	n := s.stats.writes.Add(1)
	if every := s.opts.CheckpointEvery; every > 0 && n%uint64(every) == 0 {
		s.stats.checkpoints.Add(1)
		if _, err := s.checkpoint(ctx, CheckpointPassive); err != nil {
			// Upstream logs a failed periodic checkpoint as a warning
			// (since c2a3b9ce5: it may be an early sign of damage) and
			// goes on: the write itself committed, and SQLite's
			// autocheckpoint will try again.
			s.log.WarnContext(ctx, "WAL checkpoint (PASSIVE) failed", slog.Any("error", err))
		}
	}
	if every := s.opts.OptimizeEvery; every > 0 && n%uint64(every) == 0 {
		s.stats.optimizes.Add(1)
		if _, err := s.optimizeFTS(ctx); err != nil {
			s.log.WarnContext(ctx, "periodic FTS optimize failed", slog.Any("error", err))
		}
	}
	return nil
}
