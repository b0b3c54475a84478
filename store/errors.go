package store

import (
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/internal/pytext"
	"github.com/hermesstate/hermesstate/internal/sentinel"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// Errors returned by the store, matched with errors.Is. Their texts name
// neither the package nor an operation: the call that returns one wraps it
// as "store: OPERATION: TEXT" (see the package doc's Errors section), and
// keeps the driver's error, whose message stays readable, inside.
var (
	// ErrClosed is returned by every call on a Store after Close.
	ErrClosed = errors.New("closed")

	// ErrNotFound is returned when the thing asked for does not exist: a
	// session by id, prefix or title, an export. ErrSessionNotFound and
	// ErrParentNotFound match it too.
	ErrNotFound = errors.New("not found")

	// ErrSessionNotFound is returned by a write that names a session that
	// does not exist (appending a message, ending, titling, counting
	// tokens). The database is unchanged. It matches ErrNotFound.
	ErrSessionNotFound = sentinel.New("no such session", ErrNotFound)

	// ErrParentNotFound is returned by CreateSession when ParentSessionID
	// names no session (the original raises the foreign-key
	// IntegrityError). Nothing is written. It matches ErrNotFound.
	ErrParentNotFound = sentinel.New("no such parent session", ErrNotFound)

	// ErrAmbiguous is matched by the *AmbiguousError ResolveSessionID
	// returns when a prefix matches more than one session. It does not
	// match ErrNotFound (the original returns None for both): a caller that
	// creates a session when none is found must not create one when
	// several are.
	ErrAmbiguous = errors.New("ambiguous session id prefix")

	// ErrTitleInUse is matched by the *TitleInUseError SetSessionTitle
	// returns when another session already has the title.
	ErrTitleInUse = errors.New("title already in use")

	// ErrTitleTooLong is returned when a title is longer than
	// MaxTitleLength code points after sanitising; the message is the
	// original's, e.g. "Title too long (101 chars, max 100)".
	ErrTitleTooLong = pytext.ErrTitleTooLong

	// ErrInvalidJSON is returned when a JSON column value (tool calls, model
	// config, reasoning details, codex items) is not one valid JSON value.
	// Nothing is written. (Defined in internal/transfer, whose import
	// records refuse such values with it.)
	ErrInvalidJSON = transfer.ErrInvalidJSON

	// ErrInvalidText is returned when a text argument is not valid UTF-8:
	// the original (Python) could not read such a row back. Nothing is
	// written. (Defined in internal/transfer, as ErrInvalidJSON.)
	ErrInvalidText = transfer.ErrInvalidText

	// ErrBusy is returned when another connection held the write lock for
	// the whole retry budget (Options.WriteAttempts).
	ErrBusy = sqlite.ErrBusy

	// ErrNotDatabase is returned by Open for a file that is not a SQLite
	// database.
	ErrNotDatabase = sqlite.ErrNotDatabase

	// ErrReadOnly is returned when the file, its directory or the
	// filesystem refuses writes.
	ErrReadOnly = sqlite.ErrReadOnly

	// ErrCorrupt is returned when SQLite finds the file or a full-text index
	// damaged. With a damaged index, searches fail with it and so may a
	// write that makes the index merge the damaged part (nothing is
	// written then); reads, listings and exports keep working.
	// RebuildSearchIndex rebuilds both indexes from the messages; Check
	// reports which structure is damaged.
	ErrCorrupt = sqlite.ErrCorrupt

	// ErrForeignWAL is returned by Open when the -wal file beside the
	// database belongs to another database (a copy gone wrong): SQLite would
	// replay its pages over this database. Nothing is written. It matches
	// ErrCorrupt.
	ErrForeignWAL = sqlite.ErrForeignWAL

	// ErrDiskFull is returned by a write that found the disk full. The
	// transaction was rolled back: the database is as it was, and writing
	// works again once there is space.
	ErrDiskFull = sqlite.ErrDiskFull

	// ErrCantOpen is returned by Open when SQLite cannot open the path.
	ErrCantOpen = sqlite.ErrCantOpen

	// ErrNoFTS5 is returned by Open when the program was built without
	// FTS5 (build with -tags sqlite_fts5).
	ErrNoFTS5 = sqlite.ErrNoFTS5

	// ErrSQLiteVersion is returned by Open when the linked SQLite is too old
	// or has the WAL-reset corruption bug.
	ErrSQLiteVersion = sqlite.ErrSQLiteVersion

	// ErrNotWAL is returned by Open when the file's journal mode is not the
	// one its probe left (another process changed it meanwhile). A
	// filesystem that refuses WAL is no error: the store then uses the
	// DELETE journal.
	ErrNotWAL = sqlite.ErrNotWAL
)

// ErrInvalidCost is returned by UpdateTokenCounts for a NaN cost. SQLite
// stores NaN as NULL, which the per-model usage table refuses (upstream's
// call fails there with an IntegrityError); the store refuses it first,
// in both modes, and writes nothing.
var ErrInvalidCost = errors.New("cost is NaN")

// ErrInvalidFilter is returned for a prune or count filter SQLite cannot
// run: a LIKE pattern past its limit of 50,000 bytes. Nothing is read or
// written.
var ErrInvalidFilter = errors.New("invalid filter")

// ErrSessionExists is returned by CreateSession for an id that exists
// already; nothing was written. It matches ErrExists.
var ErrSessionExists = sentinel.New("session already exists", ErrExists)

// TitleInUseError is returned by SetSessionTitle when another session holds
// the title. It matches ErrTitleInUse; its message is the original's.
type TitleInUseError struct {
	Title     string // the sanitised title
	SessionID string // the session that holds it
}

// Error returns the original's message, e.g. "Title 'my project' is already
// in use by session s1".
func (e *TitleInUseError) Error() string {
	return fmt.Sprintf("Title '%s' is already in use by session %s", e.Title, e.SessionID)
}

// Is makes errors.Is(err, ErrTitleInUse) true.
func (e *TitleInUseError) Is(target error) bool { return target == ErrTitleInUse }

// MaxAmbiguousCandidates is how many of the sessions an ambiguous prefix
// matches an AmbiguousError lists.
const MaxAmbiguousCandidates = 20

// AmbiguousError is returned by ResolveSessionID when a prefix matches more
// than one session. It matches ErrAmbiguous.
type AmbiguousError struct {
	Prefix string
	// Candidates are the sessions the prefix matches, newest first, at most
	// MaxAmbiguousCandidates of them.
	Candidates []Session
	// More is true when the prefix matches more sessions than Candidates
	// holds.
	More bool
}

// Error says how many sessions the prefix matches, e.g. "ambiguous
// session id prefix: matches 3 sessions" ("21 or more" past the limit);
// ResolveSessionID's error names the prefix before it.
func (e *AmbiguousError) Error() string {
	n := fmt.Sprint(len(e.Candidates))
	if e.More {
		n = fmt.Sprintf("%d or more", len(e.Candidates)+1)
	}
	return fmt.Sprintf("%v: matches %s sessions", ErrAmbiguous, n)
}

// Is makes errors.Is(err, ErrAmbiguous) true.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// Errors of the v21 tables' API (compression locks, gateway routing,
// handoff, async delegations).
var (
	// ErrEmptyArgument is returned when an argument that names what a call
	// works on (a lock holder, a gateway session key or source, a routing
	// key or entry, a delegation id or claim, a handoff platform) is "", or
	// a required value is missing (a completion's event, the liveness
	// callback): the original ignores such calls silently. The message
	// names the argument, e.g. "holder: must not be empty". Nothing is
	// written.
	ErrEmptyArgument = errors.New("must not be empty")

	// ErrInvalidTTL is returned for a negative compression lock lease: the
	// original would write a lock that has already expired and report it
	// acquired. Nothing is written.
	ErrInvalidTTL = errors.New("negative lock TTL")

	// ErrDelegationNotFound is returned by a write that names an async
	// delegation that does not exist. Nothing is written. It matches
	// ErrNotFound.
	ErrDelegationNotFound = sentinel.New("no such delegation", ErrNotFound)
)
