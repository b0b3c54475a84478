package store

import (
	"errors"

	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// Errors returned by the store, matched with errors.Is. Each wraps the
// underlying driver error, whose message stays readable.
var (
	// ErrClosed is returned by every call on a Store after Close.
	ErrClosed = errors.New("store: closed")

	// ErrBusy is returned when another connection held the write lock for
	// the whole retry budget (Options.WriteAttempts).
	ErrBusy = sqlite.ErrBusy

	// ErrNotDatabase is returned by Open for a file that is not a SQLite
	// database.
	ErrNotDatabase = sqlite.ErrNotDatabase

	// ErrReadOnly is returned when the file, its directory or the
	// filesystem refuses writes.
	ErrReadOnly = sqlite.ErrReadOnly

	// ErrCantOpen is returned by Open when SQLite cannot open the path.
	ErrCantOpen = sqlite.ErrCantOpen

	// ErrNoFTS5 is returned by Open when the program was built without
	// FTS5 (build with -tags sqlite_fts5).
	ErrNoFTS5 = sqlite.ErrNoFTS5

	// ErrSQLiteVersion is returned by Open when the linked SQLite is too old
	// or has the WAL-reset corruption bug.
	ErrSQLiteVersion = sqlite.ErrSQLiteVersion

	// ErrNotWAL is returned by Open when the file cannot be put in WAL mode.
	ErrNotWAL = sqlite.ErrNotWAL

	// ErrNewerSchema is what migrations report for a database written by a
	// newer Hermes. Open does not return it: it opens such a file for use
	// without migrating it, as the original does.
	ErrNewerSchema = migrations.ErrNewerSchema
)
