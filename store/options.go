package store

import (
	"log/slog"
	"time"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// Synchronous is the writer's durability level; see [SynchronousFull] and
// [SynchronousNormal].
type Synchronous = sqlite.Synchronous

const (
	// SynchronousFull (the default) syncs the WAL on every commit, so a
	// committed write survives power loss, as in the original.
	SynchronousFull = sqlite.SynchronousFull
	// SynchronousNormal syncs at checkpoints only: commits survive a crash of
	// the process but the last ones may be lost on power loss. It saves one
	// fsync per write.
	SynchronousNormal = sqlite.SynchronousNormal
)

// Defaults, from the original's SessionDB (hermes_state.py).
const (
	DefaultBusyTimeout     = sqlite.DefaultBusyTimeout // PRAGMA busy_timeout = 1000
	DefaultWriteAttempts   = sqlite.DefaultAttempts    // 15 attempts per write
	DefaultRetryMinDelay   = sqlite.DefaultMinDelay    // 20 ms
	DefaultRetryMaxDelay   = sqlite.DefaultMaxDelay    // 150 ms
	DefaultCheckpointEvery = 50                        // PASSIVE checkpoint every 50 write transactions
	DefaultOptimizeEvery   = 1000                      // FTS optimize every 1,000 write transactions (_OPTIMIZE_EVERY_N_WRITES)
	DefaultReadConnections = 4
)

// Options configure [Open]. A nil *Options, and every zero field, means the
// default named on the field.
type Options struct {
	// Synchronous is the durability level; zero is SynchronousFull.
	Synchronous Synchronous
	// BusyTimeout is how long one statement waits inside SQLite for a lock
	// before the write helper's retry takes over. Zero: DefaultBusyTimeout.
	BusyTimeout time.Duration
	// WriteAttempts is how many times a write transaction runs at most while
	// the database is locked by another connection. Zero:
	// DefaultWriteAttempts.
	WriteAttempts int
	// RetryMinDelay and RetryMaxDelay bound the random sleep between
	// attempts. Zero: DefaultRetryMinDelay, DefaultRetryMaxDelay.
	RetryMinDelay, RetryMaxDelay time.Duration
	// CheckpointEvery runs a PASSIVE WAL checkpoint after every n-th
	// committed write transaction of this Store: each write alone, or a
	// group of concurrent writes sharing one commit (see Stats.Groups).
	// Zero: DefaultCheckpointEvery; negative turns it off (SQLite's own
	// autocheckpoint still runs).
	CheckpointEvery int
	// OptimizeEvery merges the full-text indexes (Store.OptimizeFTS) after
	// every n-th committed write transaction of this Store, as upstream
	// does after every n-th write (each its own transaction there), so
	// that their segments, one a transaction, never pile up into the tens
	// of thousands that slow every search and lengthen every write. Zero:
	// DefaultOptimizeEvery; negative turns it off.
	OptimizeEvery int
	// ReadConnections bounds the read-only pool. Zero:
	// DefaultReadConnections. The pool holds one connection more, which a
	// split search (see SearchParallelism) uses to prove that its ranges
	// share one snapshot.
	ReadConnections int
	// SearchParallelism is how many rowid ranges, each on its own read
	// connection at the same time, SearchMessages may split a search into
	// when the search is large enough to gain from it: 0 (the default) is
	// runtime.NumCPU(); 1 or less never splits; any value is capped at
	// ReadConnections. A split search returns exactly the single
	// statement's rows, order, snippets and contexts, from one snapshot.
	SearchParallelism int
	// SkipMigrations opens the file as it is: no migrations, no reconcile.
	// A file a newer Hermes wrote is still refused (see WriteNewerSchema).
	SkipMigrations bool
	// WriteNewerSchema opens a file a newer Hermes wrote (schema_version
	// above 21) for writing anyway, as it is, without migrating it. Leave it
	// off unless you accept what goes wrong: this build writes v21's rules
	// into a file that follows later ones, whose tables and columns it does
	// not know (upstream itself opens such a file and writes to it).
	// Without it Open returns ErrNewerSchema and the file is untouched;
	// ReadOnly reads such a file safely.
	WriteNewerSchema bool
	// ReadOnly opens an existing file for reading only, through read-only
	// connections: the database file is never written, migrated or
	// reconciled, and no write lock is ever taken (SQLite may still create
	// the -wal and -shm files a WAL reader needs beside it). Every write
	// (and Checkpoint, Vacuum, RebuildSearchIndex) returns ErrReadOnly.
	// Dashboards, health checks and backups use it to look at a live file
	// without touching it. Every read works on a file a newer Hermes wrote
	// (columns this build does not know are ignored); a file below version
	// 21 is refused with ErrOlderSchema, since it lacks columns the reads
	// need and cannot be migrated read-only.
	ReadOnly bool
	// Logger receives migration, reconcile and checkpoint events; nil logs
	// nothing.
	Logger *slog.Logger
	// HermesHome is upstream's HERMES_HOME for the migration of a file
	// below version 18: its sessions get their gateway metadata from
	// HermesHome/sessions/sessions.json, as upstream does on its first open
	// (migrations.Options.HermesHome). Empty: nothing is copied, as upstream
	// does without the file.
	HermesHome string
	// Now is the clock for every timestamp the store writes (started_at,
	// ended_at, message timestamps) and for the age cutoffs of pruning.
	// Nil: time.Now. Tests set it to get exact values.
	Now func() time.Time
}

// withDefaults returns o with every zero field replaced by its default.
func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.BusyTimeout <= 0 {
		r.BusyTimeout = DefaultBusyTimeout
	}
	if r.WriteAttempts <= 0 {
		r.WriteAttempts = DefaultWriteAttempts
	}
	if r.RetryMinDelay <= 0 {
		r.RetryMinDelay = DefaultRetryMinDelay
	}
	if r.RetryMaxDelay <= 0 {
		r.RetryMaxDelay = DefaultRetryMaxDelay
	}
	if r.CheckpointEvery == 0 {
		r.CheckpointEvery = DefaultCheckpointEvery
	}
	if r.OptimizeEvery == 0 {
		r.OptimizeEvery = DefaultOptimizeEvery
	}
	if r.ReadConnections <= 0 {
		r.ReadConnections = DefaultReadConnections
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	return r
}
