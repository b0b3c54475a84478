// Package store is the Go data layer for Hermes Agent's session store, the
// SQLite file ~/.hermes/state.db at schema version 11, interchangeable with
// the Python original's SessionDB: a file written by either opens, migrates
// and reads the same way in the other.
//
// # Opening
//
// [Open] creates or upgrades the file (see package migrations) and returns a
// [Store]: one writer connection in WAL mode (foreign keys on, busy timeout
// 1 s, synchronous=FULL, all set per connection in the DSN) and a pool of
// read-only connections that read while the writer writes. [Options] holds
// the original's defaults; nil means them. [Store.Close] runs a PASSIVE
// checkpoint and closes everything; later calls return [ErrClosed].
//
// # Writes
//
// Every write runs through one helper: BEGIN IMMEDIATE on the writer, the
// whole closure retried while another connection holds the lock
// (SQLITE_BUSY or SQLITE_LOCKED, told apart by error code, never by message
// text) up to Options.WriteAttempts times with random 20–150 ms sleeps, any
// other error rolled back and returned at once, and a PASSIVE WAL checkpoint
// after every Options.CheckpointEvery-th write. [Store.Stats] counts writes,
// retries, busy failures and checkpoints.
//
// # Errors
//
// Failures match the sentinels in errors.go with errors.Is: [ErrBusy],
// [ErrClosed], [ErrNotDatabase], [ErrCantOpen], [ErrReadOnly], [ErrNoFTS5],
// [ErrSQLiteVersion], [ErrNotWAL]. The driver's error stays wrapped inside.
//
// # Changing the schema
//
//  1. Add a migration to ../migrations (000NN_name.sql with Up and Down
//     sections) and raise migrations.Latest.
//  2. Run make generate: schema/schema.sql is dumped from the migrations and
//     sqlc regenerates package db from queries/*.sql.
//  3. Add or change the queries in ../queries (one file per table,
//     noun-first names such as SessionGet, named parameters only) and
//     regenerate.
//  4. Test the migration on a database holding rows of the previous version;
//     make verify and make test must pass.
package store
