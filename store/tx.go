package store

import (
	"context"
	"log/slog"

	"github.com/hermesstate/hermesstate/internal/backend"
)

// Stats counts what this Store's write helper did since Open.
type Stats struct {
	// Writes is the number of committed writes (calls of the write
	// helper whose transaction committed).
	Writes uint64
	// Groups is the number of write transactions committed: a lone write
	// commits in a transaction of its own, concurrent ones share one
	// (group commit), so Writes/Groups is the mean number of writes per
	// fsync.
	Groups uint64
	// Retries is the number of transaction attempts that found the
	// database locked and were run again (a group's attempt counts once).
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
		Groups:       s.stats.groups.Load(),
		Retries:      s.stats.retries.Load(),
		BusyFailures: s.stats.busy.Load(),
		Checkpoints:  s.stats.checkpoints.Load(),
		Optimizes:    s.stats.optimizes.Load(),
	}
}

// write is the one way every write reaches the database. It runs fn in a
// BEGIN IMMEDIATE transaction on the writer connection and commits it.
//
// Concurrent writes share transactions (group commit, see groupcommit.go):
// a write that arrives while another transaction is committing waits for
// it, then runs with every write queued behind it in one transaction, each
// fn in a savepoint of its own, in arrival order, committed with one
// fsync. A write that finds no transaction in flight starts at once, alone.
// Either way write returns only after the COMMIT that holds fn's writes
// returned (at synchronous=FULL: synced), and a fn that fails leaves
// nothing and fails only its own caller.
//
// When BEGIN, a statement or COMMIT fails with SQLITE_BUSY or SQLITE_LOCKED
// (classified by error code), the transaction is rolled back and the whole of
// fn (with the rest of its group) runs again, up to Options.WriteAttempts
// times, sleeping a random RetryMinDelay–RetryMaxDelay between attempts; fn
// must therefore be safe to run more than once (compute everything inside
// it). Any other error rolls back fn's writes and returns at once, leaving
// the database as it was. When ctx ends before fn started, write returns
// ctx's error with nothing written; once fn runs, its statements run with
// ctx. A panic in fn rolls its writes back and is raised again in the
// caller's goroutine.
//
// After every CheckpointEvery-th successful write a PASSIVE checkpoint runs,
// and after every OptimizeEvery-th the full-text indexes are merged
// (optimizeFTS), as upstream's _execute_write does (once for a group that
// reaches the count); neither counts as a write, and a failure of either
// is logged, never returned: the write itself committed.
//
// It returns fn's error, an error matching ErrBusy when the attempts ran out,
// ErrReadOnly on a read-only store, or ErrClosed.
func (s *Store) write(ctx context.Context, fn func(ctx context.Context, tx backend.Tx) error) error {
	return s.writeWith(ctx, fn, writeShared)
}

// writeStaged is write for an append whose fn ends by inserting its
// message through stageMessage: in a group it is staged and inserted with
// the group's other appends in one statement (groupcommit_stage.go).
func (s *Store) writeStaged(ctx context.Context, fn writeFn) error {
	return s.writeWith(ctx, fn, writeStages)
}

// writeMode is how a write may share its transaction.
type writeMode int

const (
	writeShared writeMode = iota // with any other write (write)
	writeOwnTx                   // with none (writeAlone)
	writeStages                  // with any, its message staged (writeStaged)
)

// writeAlone is write for a fn that must have a transaction of its own,
// shared with no other write: the full-text index rebuilds, which drop and
// create tables (a schema change), take the *sql.Tx itself and may run for
// minutes. It queues like any write.
func (s *Store) writeAlone(ctx context.Context, fn func(ctx context.Context, tx backend.Tx) error) error {
	return s.writeWith(ctx, fn, writeOwnTx)
}

// writeAll is write for a fn that reads a set of sessions and then writes
// it (prune, import, deletes of many sessions, archiving by filter): no
// other write may run beside it. On SQLite every write transaction holds
// the database's one write lock, so it is write. On PostgreSQL its
// transaction begins with the exclusive form of the advisory lock every
// other write begins with shared (pgBeginAllSQL), so it waits for the
// writes in flight and holds off new ones; it takes that lock in its BEGIN,
// never after the shared one, so that two of them never deadlock upgrading.
func (s *Store) writeAll(ctx context.Context, fn writeFn) error {
	if s.pg != nil {
		return s.pgWriteAll(ctx, fn)
	}
	return s.write(ctx, fn)
}

// writeAllAlone is writeAll for a fn that writeAlone's reasons keep out
// of a shared transaction on SQLite (the full-text index rebuild).
func (s *Store) writeAllAlone(ctx context.Context, fn writeFn) error {
	if s.pg != nil {
		return s.pgWriteAll(ctx, fn)
	}
	return s.writeAlone(ctx, fn)
}

// pgWriteAll is writeAll on PostgreSQL, while the store is open.
func (s *Store) pgWriteAll(ctx context.Context, fn writeFn) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	return s.pgWriteBegin(ctx, fn, pgBeginAllSQL)
}

// writeWith is write, writeAlone and writeStaged.
func (s *Store) writeWith(ctx context.Context, fn writeFn, mode writeMode) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	if s.pg != nil {
		return s.pgWrite(ctx, fn)
	}
	w, err := s.writer()
	if err != nil {
		return err
	}
	if s.directWrites {
		// Tests and benchmarks only: the path before group commit.
		m := &pendingWrite{ctx: ctx, fn: fn}
		if k, n := s.runOwn(w, m, m); k > 0 {
			s.periodic(ctx, n)
		}
		return m.result()
	}
	return s.groupWrite(ctx, w, fn, mode)
}

// periodic runs the PASSIVE checkpoint and the full-text index merge when
// the count of committed write transactions reached n, a multiple of
// CheckpointEvery or OptimizeEvery. It counts transactions, not writes:
// what each task keeps in check grows by transaction (the WAL by the pages
// a commit writes, the full-text indexes by one segment a commit), and a
// lone writer's writes are each a transaction of its own, as upstream's
// are, so its cadence is upstream's; a group of appends sharing one commit
// counts once.
func (s *Store) periodic(ctx context.Context, n uint64) {
	if due(n, 1, s.opts.CheckpointEvery) {
		s.stats.checkpoints.Add(1)
		if _, err := s.checkpoint(ctx, CheckpointPassive); err != nil {
			// Upstream logs a failed periodic checkpoint as a warning
			// (since c2a3b9ce5: it may be an early sign of damage) and
			// goes on: the write itself committed, and SQLite's
			// autocheckpoint will try again.
			s.log.WarnContext(ctx, "WAL checkpoint (PASSIVE) failed", slog.Any("error", err))
		}
	}
	if due(n, 1, s.opts.OptimizeEvery) {
		s.stats.optimizes.Add(1)
		if _, err := s.optimizeFTS(ctx); err != nil {
			s.log.WarnContext(ctx, "periodic FTS optimize failed", slog.Any("error", err))
		}
	}
}

// due reports whether counting k more writes, up to n, passed a multiple of
// every (never when every is not positive).
func due(n uint64, k, every int) bool {
	if every <= 0 {
		return false
	}
	e := uint64(every)
	return n/e != (n-uint64(k))/e
}
