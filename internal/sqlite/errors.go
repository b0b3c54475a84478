package sqlite

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/sentinel"
)

// The sentinels' texts name no package and no operation: the caller that
// returns one says what it was doing (store: "store: open PATH: …").

var (
	// ErrBusy reports that the database stayed locked by another connection for
	// the whole retry budget (SQLITE_BUSY or SQLITE_LOCKED on every attempt).
	ErrBusy = errors.New("database is locked by another connection")

	// ErrNotDatabase reports a file that is not a SQLite database (SQLITE_NOTADB),
	// or is encrypted, or whose header is damaged.
	ErrNotDatabase = errors.New("file is not a SQLite database")

	// ErrReadOnly reports a write refused because the file, its directory or the
	// connection is read-only (SQLITE_READONLY).
	ErrReadOnly = errors.New("database is read-only")

	// ErrCantOpen reports a path SQLite cannot open (SQLITE_CANTOPEN): a missing
	// directory, a directory in place of the file, or missing permissions.
	ErrCantOpen = errors.New("unable to open database file")

	// ErrNoFTS5 reports a build of the SQLite library without FTS5 or without the
	// trigram tokenizer; the state database needs both. With the bundled library
	// this means the program was built without the sqlite_fts5 build tag.
	ErrNoFTS5 = errors.New("SQLite was built without FTS5 (build with: go build -tags sqlite_fts5)")

	// ErrSQLiteVersion reports a SQLite library older than this package supports
	// (see [CheckLibrary]).
	ErrSQLiteVersion = errors.New("unsupported SQLite version")

	// ErrCorrupt reports a damaged database or full-text index
	// (SQLITE_CORRUPT, including FTS5's SQLITE_CORRUPT_VTAB).
	ErrCorrupt = errors.New("database is damaged")

	// ErrForeignWAL reports a -wal file beside the database that belongs to
	// another database: replaying it would replace the database's pages with
	// the other one's. It matches [ErrCorrupt].
	ErrForeignWAL = sentinel.New("the -wal file beside it belongs to another database", ErrCorrupt)

	// ErrDiskFull reports a write refused because the disk, or the database's
	// page limit, is full (SQLITE_FULL), or an I/O error a full disk caused
	// (see [IsDiskFull]), such as an open that could not create the -shm
	// file. The transaction was rolled back.
	ErrDiskFull = errors.New("database or disk is full")

	// ErrNotWAL reports a writer whose journal mode is not the one the probe
	// left (applyJournal: WAL, or DELETE where the filesystem refuses WAL):
	// another process changed it in between.
	ErrNotWAL = errors.New("database could not be put in WAL mode")
)

// Code returns the primary and extended SQLite result codes carried by err, and
// false when err holds no SQLite error.
func Code(err error) (primary sqlite3.ErrNo, extended sqlite3.ErrNoExtended, ok bool) {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return 0, 0, false
	}
	return se.Code, se.ExtendedCode, true
}

// IsBusy reports whether err is SQLITE_BUSY or SQLITE_LOCKED in any of their
// extended forms (BUSY_SNAPSHOT, BUSY_RECOVERY, LOCKED_SHAREDCACHE, …): the
// failures that another connection's lock causes and that a retry can cure.
func IsBusy(err error) bool {
	code, _, ok := Code(err)
	return ok && (code == sqlite3.ErrBusy || code == sqlite3.ErrLocked)
}

// IsDiskFull reports whether err is a SQLite failure a full disk caused:
// SQLITE_FULL; an SQLITE_IOERR of any extended code whose system errno the
// driver reports as ENOSPC or EDQUOT (a write, an fsync, a truncate, the
// -shm file's growth); or SQLITE_IOERR_SHMSIZE, growing the -shm file,
// when no errno came with it (SQLite documents a full volume as its
// cause). SQLite's plain "disk I/O error" says none of this in its text.
func IsDiskFull(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	switch {
	case se.Code == sqlite3.ErrFull:
		return true
	case se.Code != sqlite3.ErrIoErr:
		return false
	case se.SystemErrno == syscall.ENOSPC || se.SystemErrno == syscall.EDQUOT:
		return true
	}
	return se.SystemErrno == 0 && se.ExtendedCode == sqlite3.ErrIoErrSHMSize
}

// IsForeignKey reports whether err is a FOREIGN KEY constraint failure
// (SQLITE_CONSTRAINT_FOREIGNKEY): a row naming a parent row that does not
// exist.
func IsForeignKey(err error) bool {
	_, ext, ok := Code(err)
	return ok && ext == sqlite3.ErrConstraintForeignKey
}

// IsUnique reports whether err is a uniqueness failure: a UNIQUE index's
// (SQLITE_CONSTRAINT_UNIQUE) or the PRIMARY KEY's
// (SQLITE_CONSTRAINT_PRIMARYKEY), a value another row holds. Other
// constraints (NOT NULL, CHECK, FOREIGN KEY) are not.
func IsUnique(err error) bool {
	_, ext, ok := Code(err)
	return ok && (ext == sqlite3.ErrConstraintUnique || ext == sqlite3.ErrConstraintPrimaryKey)
}

// Classify wraps err with the sentinel its SQLite code maps to, so callers can
// test it with errors.Is and still read the driver's message: "database is
// damaged: database disk image is malformed". Where SQLite's own message for
// the code is the sentinel's text (SQLITE_FULL's "database or disk is full",
// SQLITE_CANTOPEN's "unable to open database file") the message is the
// driver's alone, so that it does not say the same thing twice. Errors
// without a mapped code are returned unchanged; nil stays nil.
func Classify(err error) error {
	code, _, ok := Code(err)
	if !ok {
		return err
	}
	var sentinel error
	switch code {
	case sqlite3.ErrBusy, sqlite3.ErrLocked:
		sentinel = ErrBusy
	case sqlite3.ErrNotADB:
		sentinel = ErrNotDatabase
	case sqlite3.ErrReadonly:
		sentinel = ErrReadOnly
	case sqlite3.ErrCantOpen:
		sentinel = ErrCantOpen
	case sqlite3.ErrCorrupt:
		sentinel = ErrCorrupt
	case sqlite3.ErrFull, sqlite3.ErrIoErr:
		if !IsDiskFull(err) {
			return err
		}
		sentinel = ErrDiskFull
	default:
		return err
	}
	switch {
	case errors.Is(err, sentinel):
		return err
	case code == sqlite3.ErrFull || code == sqlite3.ErrCantOpen:
		return &classified{sentinel: sentinel, err: err}
	}
	return fmt.Errorf("%w: %w", sentinel, err)
}

// classified is an error Classify matched to a sentinel whose text SQLite's
// message already says: it reads as the driver's error and matches both.
type classified struct {
	sentinel, err error
}

func (e *classified) Error() string { return e.err.Error() }

// Unwrap returns the sentinel and the driver's error.
func (e *classified) Unwrap() []error { return []error{e.sentinel, e.err} }
