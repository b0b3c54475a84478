package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	// The driver. FTS5 is compiled in only with the sqlite_fts5 build tag;
	// CheckLibrary reports a build without it.
	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/dbpath"
)

// DefaultBusyTimeout is the original's connection timeout (sqlite3.connect
// timeout=1.0, read back as PRAGMA busy_timeout = 1000). It is kept short on
// purpose: waiting longer inside SQLite's deterministic busy handler makes
// competing writers collide in lockstep; [Retry] waits with jitter instead.
const DefaultBusyTimeout = time.Second

// Synchronous is the durability level of the writer connection
// (PRAGMA synchronous).
type Synchronous int

const (
	// SynchronousFull syncs the WAL on every commit: a committed transaction
	// survives power loss. It is the zero value and the original's level
	// (it sets no pragma and SQLite's default is FULL).
	SynchronousFull Synchronous = iota
	// SynchronousNormal syncs only at checkpoints: a commit survives a crash of
	// the process but the last transactions may be lost on power loss. Faster
	// by the cost of one fsync per commit.
	SynchronousNormal
)

// String returns the pragma value, "FULL" or "NORMAL".
func (s Synchronous) String() string {
	if s == SynchronousNormal {
		return "NORMAL"
	}
	return "FULL"
}

// Config is how connections to the state database are set up. The zero value
// is the original's setup.
type Config struct {
	// BusyTimeout is how long one statement waits for a lock inside SQLite
	// before failing with SQLITE_BUSY. Zero means [DefaultBusyTimeout].
	BusyTimeout time.Duration
	// Synchronous is the writer's durability level.
	Synchronous Synchronous
	// Retry is applied to establishing the writer connection, which may need
	// the write lock to switch a new file to WAL.
	Retry Retry
	// OnWALFallback, when set, is called when the writer's file is put in
	// the DELETE journal because its filesystem refuses WAL (see
	// [IsWALRefused]), with SQLite's reason: once per file and process, as
	// upstream warns once.
	OnWALFallback func(cause error)
	// NoStmtCache turns off the driver's per-connection statement cache
	// (see [stmtCacheSize]), so that every statement is prepared and
	// finalized on each call: the bare database/sql path the store's
	// benchmarks measure themselves against.
	NoStmtCache bool
}

// stmtCache is the _stmt_cache_size c asks for.
func (c Config) stmtCache() string {
	if c.NoStmtCache {
		return "0"
	}
	return stmtCacheSize
}

// busyTimeout returns how long SQLite's busy handler waits for a lock:
// c.BusyTimeout, or DefaultBusyTimeout when that is not positive.
func (c Config) busyTimeout() time.Duration {
	if c.BusyTimeout <= 0 {
		return DefaultBusyTimeout
	}
	return c.BusyTimeout
}

// busyMillis is busyTimeout in milliseconds, as the driver's DSN takes it.
func (c Config) busyMillis() string {
	return strconv.FormatInt(c.busyTimeout().Milliseconds(), 10)
}

// fileURI returns path as an absolute SQLite file: URI. Characters SQLite would
// read as URI syntax (?, #, %) are percent-encoded.
func fileURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String(), nil
}

// writerDSN is the writer connection's setup, applied by the driver to every
// connection it opens (not an Exec on one pooled connection):
//
//   - _txlock=immediate: every transaction is BEGIN IMMEDIATE, so a writer
//     takes the write lock at BEGIN, where SQLite's busy handler and our retry
//     apply; a DEFERRED read→write upgrade would fail with SQLITE_BUSY_SNAPSHOT
//     without waiting.
//   - no _journal_mode: OpenWriter has set the file's journal mode before
//     (applyJournal: WAL, or DELETE where the filesystem refuses WAL), and
//     the mode lives in the file's header, so each connection follows it.
//   - _foreign_keys=1: parent sessions and message sessions must exist; SQLite
//     defaults to off per connection.
//   - _busy_timeout: see [DefaultBusyTimeout].
//   - _synchronous: mattn/go-sqlite3 sets NORMAL on every connection unless
//     told otherwise, silently weaker than the original's FULL. On macOS it
//     is always FULL (hostDurability).
//   - _stmt_cache_size: see [stmtCacheSize].
func writerDSN(uri string, c Config) string {
	v := url.Values{}
	sync, _ := hostDurability(c.Synchronous)
	v.Set("_txlock", "immediate")
	v.Set("_foreign_keys", "1")
	v.Set("_busy_timeout", c.busyMillis())
	v.Set("_synchronous", sync.String())
	v.Set("_stmt_cache_size", c.stmtCache())
	return uri + "?" + v.Encode()
}

// stmtCacheSize is how many prepared statements each connection keeps for
// reuse (the driver's _stmt_cache_size). The store runs a few dozen
// distinct statements over and over; preparing the search-context CTE or
// the listing query costs more than running it. SQLite re-prepares a cached
// statement by itself when the schema changes.
const stmtCacheSize = "64"

// readerDSN is a read-only connection: mode=ro makes SQLite refuse any write,
// so the pool can never take the write lock; the busy timeout covers the short
// moments a WAL reader waits (recovery, WAL restart).
func readerDSN(uri string, c Config) string {
	v := url.Values{}
	v.Set("mode", "ro")
	v.Set("_busy_timeout", c.busyMillis())
	v.Set("_stmt_cache_size", c.stmtCache())
	return uri + "?" + v.Encode()
}

// OpenWriter opens the single writer connection to the state database at path,
// creating the file (0600: it holds conversations) when missing; its
// directory must exist (callers create the default location's with
// dbpath.MakeDefaultDir, and only that one). The returned pool holds at most one connection,
// kept open for the pool's life, in WAL mode with foreign keys on and the WAL
// file cut back to [WALSizeLimit] after it grew past it. On a filesystem
// that refuses WAL's locking or shared memory it is in the DELETE journal
// instead, as upstream falls back (applyJournal; Config.OnWALFallback is
// told); a transient I/O error is never a reason to.
//
// It fails with an error matching dbpath.ErrNoDirectory, [ErrNotDatabase],
// [ErrCantOpen], [ErrReadOnly], [ErrBusy] (the lock needed to switch a new
// file to WAL stayed taken for the whole retry budget), [ErrNotWAL] (the
// journal mode changed under it), [ErrNoFTS5] or [ErrSQLiteVersion].
func OpenWriter(ctx context.Context, path string, c Config) (*sql.DB, error) {
	if err := checkLinkedLibrary(); err != nil {
		return nil, err
	}
	if err := notADirectory(path); err != nil {
		return nil, err
	}
	uri, err := fileURI(path)
	if err != nil {
		return nil, err
	}
	if err := dbpath.DirExists(path); err != nil {
		return nil, err
	}
	if _, err := EnsureFile(ctx, path); err != nil {
		return nil, err
	}
	if err := checkFile(path, true); err != nil {
		return nil, err
	}
	if err := CheckWAL(ctx, path); err != nil {
		return nil, err
	}
	before := sideFilesOf(path)
	var mode string
	err = c.Retry.Do(ctx, func(ctx context.Context) error {
		var cause error
		var err error
		mode, cause, err = applyJournal(ctx, "sqlite3", uri, "mode=rw", c)
		if cause != nil {
			reportFallback(path, c, cause)
		}
		return err
	})
	if err != nil {
		before.removeCreated()
		return nil, Classify(err)
	}
	db := sql.OpenDB(connector{dsn: writerDSN(uri, c), driver: writerDriver})
	// One writer connection per store: SQLite admits one writer at a time
	// anyway, and BEGIN IMMEDIATE/COMMIT must run on the same connection.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := setup(ctx, db, c.Retry, mode); err != nil {
		db.Close()
		before.removeCreated()
		return nil, err
	}
	return db, nil
}

// OpenReader opens a pool of up to maxConns read-only connections to the state
// database at path, which must exist. It fails like [OpenWriter].
func OpenReader(ctx context.Context, path string, c Config, maxConns int) (*sql.DB, error) {
	if err := checkLinkedLibrary(); err != nil {
		return nil, err
	}
	if err := notADirectory(path); err != nil {
		return nil, err
	}
	if err := checkFile(path, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %w", ErrCantOpen, err)
		}
		return nil, err
	}
	uri, err := fileURI(path)
	if err != nil {
		return nil, err
	}
	before := sideFilesOf(path)
	db := sql.OpenDB(connector{dsn: readerDSN(uri, c), driver: readerDriver})
	db.SetMaxOpenConns(max(maxConns, 1))
	db.SetMaxIdleConns(max(maxConns, 1))
	if err := setup(ctx, db, c.Retry, ""); err != nil {
		db.Close()
		before.removeCreated()
		return nil, err
	}
	return db, nil
}

// connector opens every connection of a pool with dsn through driver, whose
// ConnectHook sets what the driver's DSN cannot.
type connector struct {
	dsn    string
	driver *sqlite3.SQLiteDriver
}

// Connect opens one connection.
func (c connector) Connect(context.Context) (driver.Conn, error) {
	return c.driver.Open(c.dsn)
}

// Driver returns the driver behind the connector.
func (c connector) Driver() driver.Driver { return c.driver }

// readerDriver opens read-only connections with temp_store=MEMORY, which
// the driver's DSN cannot set. Without it every temporary b-tree a read
// opens (a correlated ORDER BY, the ORDER BY over a recursive CTE) creates
// a temporary file: the compression-tip walk took 1.5 ms instead of 40 us.
// The reads that sort many rows (the export) sort only ids and keys, so
// the memory this holds stays small. The writer keeps temporary files on
// disk: VACUUM builds its copy of the whole database in temporary storage.
var readerDriver = &sqlite3.SQLiteDriver{
	ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, err := c.Exec("PRAGMA temp_store = MEMORY", nil)
		return err
	},
}

// WALSizeLimit is the writer's PRAGMA journal_size_limit, in bytes: the
// size SQLite cuts the -wal file back to on the first commit after a
// checkpoint let the WAL start over from its beginning.
//
// Checkpoints copy pages out of the WAL but never shrink the file: without
// a limit, a WAL that grew while a long read transaction pinned it (90+ MB
// in the original's gateway, HA #35201; 1.5 GB for 20,000 appends behind
// one open reader here) keeps its peak size until the last connection to
// the file closes. 64 MiB is the limit the original later adopted
// (_WAL_SIZE_LIMIT_BYTES); the WAL of normal use, between the periodic
// checkpoints, stays far below it, so the cut happens only after such a
// growth.
const WALSizeLimit = 64 << 20

// walSizeLimitSQL sets WALSizeLimit (64 MiB, spelled out: a pragma takes
// no bound parameter, and statements are constants).
// TestOpenWriterSetsUpEveryConnection reads the value back.
const walSizeLimitSQL = "PRAGMA journal_size_limit = 67108864"

// writerDriver opens the writer connection with journal_size_limit set to
// WALSizeLimit, and the platform's durability pragmas (hostDurability: on
// macOS F_FULLFSYNC barriers at checkpoints), which the driver's DSN
// cannot set.
var writerDriver = &sqlite3.SQLiteDriver{
	ConnectHook: func(c *sqlite3.SQLiteConn) error {
		_, pragmas := hostDurability(SynchronousFull)
		for _, p := range append([]string{walSizeLimitSQL}, pragmas...) {
			if _, err := c.Exec(p, nil); err != nil {
				return err
			}
		}
		return nil
	},
}

// checkLinkedLibrary runs CheckLibrary once per process on an in-memory
// database, before any file is created or opened: a build without FTS5 must
// not leave an empty state.db behind.
var checkLinkedLibrary = sync.OnceValue(func() error {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return err
	}
	defer db.Close()
	return CheckLibrary(context.Background(), db)
})

// setup establishes the first connection (retrying while the file is locked)
// and checks, for the writer, that the journal mode is wantMode, the one
// applyJournal left ("" for a reader: any).
func setup(ctx context.Context, db *sql.DB, r Retry, wantMode string) error {
	if err := r.Do(ctx, db.PingContext); err != nil {
		return Classify(err)
	}
	// Read the header: a file that is not a database fails here, not at the
	// first real query.
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return Classify(err)
	}
	if wantMode != "" && mode != wantMode {
		return fmt.Errorf("%w: journal_mode is %q", ErrNotWAL, mode)
	}
	// A first read transaction opens the WAL index (the -shm file), which
	// the pragmas do not: a disk too full to grow it fails the open here,
	// as ErrDiskFull, instead of the first query after it.
	var tables int64
	if err := db.QueryRowContext(ctx, firstReadSQL).Scan(&tables); err != nil {
		return Classify(err)
	}
	return nil
}

// firstReadSQL is setup's first read: the schema's size, a few pages.
const firstReadSQL = "SELECT COUNT(*) FROM sqlite_schema"

// notADirectory reports a directory at path as ErrCantOpen. SQLite opens a
// directory read-only without complaint and only fails at the first read,
// with a misleading disk I/O error.
func notADirectory(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%w: it is a directory", ErrCantOpen)
	}
	return nil
}

// EnsureFile creates a missing database file whole, so that no state.db of
// ours is ever seen empty: SQLite creates it under a temporary name beside
// path (through SQLite itself, never an os descriptor; see the package doc),
// WAL mode writes its first page, it is closed and made private to the user
// (its -wal and -shm files copy its permissions), and only then is it linked
// to path. A link fails when path exists, so two processes creating the
// file at once both end up with the one that got there first. A file that
// already exists keeps its permissions. It reports whether this call
// created the file (OpenWriter calls it too; a caller that must say so, as
// cmd/migrate does, calls it first).
func EnsureFile(ctx context.Context, path string) (created bool, err error) {
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := checkLinkedLibrary(); err != nil {
		return false, err
	}
	if err := dbpath.DirExists(path); err != nil {
		return false, err
	}
	tmp := fmt.Sprintf("%s.new-%d-%d", path, os.Getpid(), rand.Uint64())
	defer os.Remove(tmp)
	if err := createWAL(ctx, tmp, Config{}); err != nil {
		return false, fmt.Errorf("create the file: %w", err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return false, fmt.Errorf("create the file: %w", err)
	}
	err = os.Link(tmp, path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return false, nil
	case errors.Is(err, errors.ErrUnsupported), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.ENOTSUP):
		// A filesystem without hard links: rename, which cannot refuse an
		// existing path, after one more look.
		if _, err := os.Stat(path); err == nil {
			return false, nil
		}
		return true, os.Rename(tmp, path)
	default:
		return false, fmt.Errorf("create the file: %w", err)
	}
}

// createWAL creates an empty database at path in WAL mode: one 4096-byte
// page whose header records the journal mode. Where the filesystem
// refuses WAL (applyJournal) the page is written in DELETE mode instead
// (PRAGMA user_version = 0 writes it), and OpenWriter then reports the
// fallback for the file itself.
func createWAL(ctx context.Context, path string, c Config) error {
	uri, err := fileURI(path)
	if err != nil {
		return err
	}
	mode, _, err := applyJournal(ctx, "sqlite3", uri, "mode=rwc", c)
	if err != nil {
		return Classify(err)
	}
	if mode == JournalWAL {
		return nil
	}
	db, err := sql.Open("sqlite3", uri+"?mode=rw")
	if err != nil {
		return err
	}
	defer db.Close()
	// Hand-written pragma: it writes the header page of an empty file.
	if _, err := db.ExecContext(ctx, "PRAGMA user_version = 0"); err != nil {
		return Classify(err)
	}
	return db.Close()
}

// checkFile refuses, before SQLite touches it, a file SQLite would silently
// take for something else: an empty (0-byte) file, which SQLite treats as a
// new database and would write a schema into (the store never leaves one
// behind, see EnsureFile; one left by another program or a failed copy is
// reported, not overwritten); and, for a writer, a file or directory the
// process may not write, which SQLite would open read-only and fail on at
// the first write.
func checkFile(path string, writer bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return fmt.Errorf("%w: the file is empty (0 bytes)", ErrNotDatabase)
	}
	if !writer {
		return nil
	}
	if err := writable(path); err != nil {
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	// SQLite must create the -wal and -shm files beside the database when
	// they are missing.
	if _, err := os.Stat(path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		if err := writable(filepath.Dir(path)); err != nil {
			return fmt.Errorf("%w: its directory: %w", ErrReadOnly, err)
		}
	}
	return nil
}

// Queryer is the read side of *sql.DB, *sql.Conn and *sql.Tx.
type Queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// CheckLibrary verifies that the linked SQLite has what the state database
// needs: FTS5 ([ErrNoFTS5]), the trigram tokenizer (SQLite ≥ 3.34, also
// [ErrNoFTS5]) and no WAL-reset bug ([ErrSQLiteVersion]: 3.7.0–3.51.2 could
// corrupt a WAL database written by several connections; fixed in 3.51.3 and
// backported to 3.50.7 and 3.44.6). The bundled library (3.54) passes when the
// program is built with -tags sqlite_fts5.
func CheckLibrary(ctx context.Context, q Queryer) error {
	lib, err := ReadLibrary(ctx, q)
	if err != nil {
		return err
	}
	if !lib.FTS5 {
		return fmt.Errorf("%w (SQLite %s)", ErrNoFTS5, lib.Version)
	}
	if !lib.Trigram {
		return fmt.Errorf("%w: SQLite %s has no trigram tokenizer (needs 3.34 or newer)", ErrNoFTS5, lib.Version)
	}
	if !lib.WALResetFixed {
		return fmt.Errorf("%w: SQLite %s has the WAL-reset corruption bug (fixed in 3.51.3, 3.50.7, 3.44.6); build with the bundled library (no libsqlite3 tag)", ErrSQLiteVersion, lib.Version)
	}
	return nil
}

// Library describes the linked SQLite library.
type Library struct {
	Version       string // sqlite_version(), e.g. "3.54.1"
	FTS5          bool   // compiled with FTS5
	Trigram       bool   // FTS5's trigram tokenizer is there (FTS5 on 3.34 or newer)
	WALResetFixed bool   // free of the WAL-reset corruption bug
}

// ReadLibrary reports the linked SQLite's version and features through q.
func ReadLibrary(ctx context.Context, q Queryer) (Library, error) {
	var lib Library
	// sqlite_compileoption_used reads the library's compile-time options; it
	// has no side effects and needs no table.
	err := q.QueryRowContext(ctx, "SELECT sqlite_version(), sqlite_compileoption_used('ENABLE_FTS5')").Scan(&lib.Version, &lib.FTS5)
	if err != nil {
		return lib, Classify(err)
	}
	v, err := parseVersion(lib.Version)
	if err != nil {
		return lib, err
	}
	lib.Trigram = lib.FTS5 && !v.less(semver{3, 34, 0})
	lib.WALResetFixed = walResetFixed(v)
	return lib, nil
}

type semver [3]int

func (a semver) less(b semver) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func parseVersion(s string) (semver, error) {
	var v semver
	if _, err := fmt.Sscanf(s, "%d.%d.%d", &v[0], &v[1], &v[2]); err != nil {
		return v, fmt.Errorf("%w: cannot parse SQLite version %q", ErrSQLiteVersion, s)
	}
	return v, nil
}

// walResetFixed reports whether SQLite v carries the fix for the WAL-reset bug
// (sqlite.org/wal.html#walresetbug): 3.51.3 and later, or the 3.50.7+ and
// 3.44.6+ backports.
func walResetFixed(v semver) bool {
	switch {
	case !v.less(semver{3, 51, 3}):
		return true
	case v[0] == 3 && v[1] == 50:
		return !v.less(semver{3, 50, 7})
	case v[0] == 3 && v[1] == 44:
		return !v.less(semver{3, 44, 6})
	}
	return false
}
