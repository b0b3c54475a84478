// Package sqlite opens the state database the one way every part of hermesstate
// opens it, classifies SQLite failures by error code, and holds the retry policy
// for write transactions.
//
// It exists so that [store] and cmd/migrate cannot drift apart: both open the
// writer with [OpenWriter] (WAL, or the DELETE journal where the filesystem
// refuses WAL ([IsWALRefused]); foreign keys, busy timeout, synchronous mode,
// all set per connection in the DSN; macOS's full-fsync barriers), both read through [OpenReadOnly] (Stat,
// [CheckWAL], the read-only pool) or look before writing with [Peek] (which
// leaves no -wal or -shm behind), and both retry on the same [Retry] policy.
// It creates no directory: only the default location's are created, by its
// callers (internal/dbpath).
//
// # Error classification
//
// Failures are classified by SQLite's primary and extended result codes
// ([Code]), never by message text, here and nowhere else. [IsBusy] is the
// only test the retry loop uses; [IsDiskFull] tells a full disk from other
// I/O errors; [IsForeignKey] and [IsUnique] name the constraint a write
// broke; [Classify] maps the codes a caller can act on to the sentinels
// [ErrBusy], [ErrNotDatabase], [ErrReadOnly], [ErrCantOpen], [ErrCorrupt]
// and [ErrDiskFull], keeping the driver's error inside.
//
// The errors name neither this package nor the operation: no "open PATH:"
// (its callers say what they were doing, once: "store: open PATH: file is
// not a SQLite database: file is not a database").
//
// # Files
//
// Nothing here opens the database file, its -wal or its -shm with the os
// package: closing any descriptor on the database inside a process that holds
// SQLite locks on it silently drops those locks (sqlite.org/howtocorrupt §2.2).
// Files are inspected with os.Stat and changed with os.Chmod, by path.
//
// It must not know the schema or the store's rules: what a file holds,
// which version it is at and what may be written into it are decided by
// package migrations and the store.
package sqlite
