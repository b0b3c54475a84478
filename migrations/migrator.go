package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// Options configure a [Migrator]. The zero value (or nil) is the defaults.
type Options struct {
	// DryRun runs Up, UpTo, Down, DownTo and Redo for real inside their
	// transaction and rolls it back at the end: the results say what would be
	// applied, and the file is left as it was.
	DryRun bool
	// Retry is the policy for taking the write lock; the zero value means
	// the original's (15 attempts, 20–150 ms apart).
	Retry Retry
	// NoReconcile makes Up and UpTo(Latest) leave a file that is already at
	// Latest as it is, even when it lacks declared columns, indexes or FTS
	// indexes. A file below Latest is always brought all the way: for the
	// original, adding the missing columns is how v2–v9 are applied.
	NoReconcile bool
	// Logger receives goose's progress and the adoption/reconcile steps at
	// Info level; nil logs nothing.
	Logger *slog.Logger
	// HermesHome is the directory upstream calls HERMES_HOME
	// (get_hermes_home()), for the v18 step: a file migrated from below
	// version 18 gets the gateway metadata of its sessions from
	// HermesHome/sessions/sessions.json, as upstream does. Empty, or
	// without that file, the step copies nothing (upstream's behaviour for
	// a missing file). It is not derived from the database's path: upstream
	// reads HERMES_HOME wherever the file is.
	HermesHome string
}

// Retry is how the migrator waits for the write lock another connection
// holds: the whole attempt runs again, up to Attempts times, with a random
// sleep between MinDelay and MaxDelay.
type Retry struct {
	Attempts           int
	MinDelay, MaxDelay time.Duration
	// OnRetry, when set, is called after each busy attempt that will be
	// retried, with its 1-based number and error.
	OnRetry func(attempt int, err error)
}

// policy returns r as the sqlite package's policy, the original's when r
// is zero.
func (r Retry) policy() sqlite.Retry {
	if r.Attempts == 0 {
		p := sqlite.DefaultRetry()
		p.OnRetry = r.OnRetry
		return p
	}
	return sqlite.Retry{Attempts: r.Attempts, MinDelay: r.MinDelay, MaxDelay: r.MaxDelay, OnRetry: r.OnRetry}
}

// Result is one migration applied or rolled back.
type Result struct {
	Version   int64
	Name      string // file name, e.g. "00011_fts_inline_tool_fields.sql"
	Direction string // "up" or "down"
	Duration  time.Duration
	// Adopted marks an add-column migration the file already partly had:
	// the migrator added only what was missing and recorded the version
	// (see adopt.go); goose did not run it.
	Adopted bool
}

// UpResult is what Up or UpTo did.
type UpResult struct {
	// From and To are the schema versions before and after (equal when
	// nothing was to be done; To is what a dry run would have reached).
	From, To int64
	// Migrations are the goose migrations UpTo applied below Latest, in
	// order, including the ones adopted (see adopt.go). Up to Latest runs
	// none: it brings the file there as the original does.
	Migrations []Result
	// Changes describes, in order, what the way to Latest changed: tables
	// and indexes created, columns added ("add column
	// messages.reasoning_content"), full-text indexes rebuilt, the version
	// set. For a file already at Latest these are the reconcile's repairs;
	// none when the file was complete.
	Changes []string
	// Duration is how long the work under the write lock took.
	Duration time.Duration
}

// Status is one migration and whether the database has it.
type Status struct {
	Version int64
	Name    string
	Applied bool
}

// Migrator runs the embedded migrations against one database through goose,
// with the version kept in schema_version. Its methods are safe for concurrent
// use; calls are serialised. Several processes may migrate the same file at
// once: each run holds the database's write lock from planning to commit.
type Migrator struct {
	db     *sql.DB
	opts   Options
	log    *slog.Logger
	store  *versionStore
	goose  *goose.Provider
	mu     sync.Mutex
	latest int64
	// adoptLegacy runs adopt before each up; off only for the history replay.
	adoptLegacy bool
}

// New returns a Migrator for db, which must be a writer from
// [sqlite.OpenWriter] (or any single-connection pool on a SQLite database).
func New(db *sql.DB, opts *Options) (*Migrator, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	vs := &versionStore{retry: o.Retry.policy(), env: stepEnv{hermesHome: o.HermesHome, log: logger}}
	p, err := goose.NewProvider(goose.DialectCustom, db, FS,
		goose.WithGoMigrations(gooseMigrations()...),
		goose.WithStore(vs),
		goose.WithSessionLocker(vs),
		// goose must not open transactions of its own: every statement runs in
		// the session transaction the version store opened (see
		// version_store.go). The option is meant for databases that cannot mix
		// DDL and DML in one transaction; here it only turns goose's BEGINs off.
		goose.WithIsolateDDL(true),
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(logger),
		goose.WithVerbose(o.Logger != nil),
	)
	if err != nil {
		return nil, err
	}
	m := &Migrator{db: db, opts: o, log: logger, store: vs, goose: p, adoptLegacy: true}
	for _, src := range p.ListSources() {
		m.latest = max(m.latest, src.Version)
	}
	if m.latest != Latest {
		return nil, fmt.Errorf("migrations: embedded migrations end at %d, Latest is %d", m.latest, Latest)
	}
	return m, nil
}

// Version returns the database's schema version (0 for a new file). It takes
// no lock and writes nothing.
func (m *Migrator) Version(ctx context.Context) (int64, error) {
	return readVersion(ctx, m.db)
}

// Status lists every migration, oldest first, with whether the database has
// it. It takes no lock and writes nothing.
func (m *Migrator) Status(ctx context.Context) ([]Status, error) {
	cur, err := m.Version(ctx)
	if err != nil {
		return nil, err
	}
	return Statuses(cur)
}

// Statuses lists every embedded migration, oldest first, marking those at or
// below version as applied: the status of a database at that version, for
// callers that have no database open (a file that does not exist yet is at
// version 0).
func Statuses(version int64) ([]Status, error) {
	names, err := Names()
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(names))
	for _, name := range names {
		prefix, _, _ := strings.Cut(name, "_")
		v, err := strconv.ParseInt(prefix, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("migrations: bad file name %q", name)
		}
		out = append(out, Status{Version: v, Name: name, Applied: v <= version})
	}
	return out, nil
}

// Up brings the database to Latest the way upstream's _init_schema
// (c2a3b9ce5) does, in one write transaction (see upgrade.go): a new file
// gets upstream's v21 schema byte for byte and version 21; a file any
// Hermes left at an older version gets what upstream would make of it (the
// same columns in the same order, the same sqlite_master, the rows of the
// v16, v18 and v20 data steps); a file already at Latest gets whatever
// declared column, index or FTS index it lacks (the reconcile;
// Options.NoReconcile turns it off) and the heal of rows whose active is
// NULL, and when it lacks nothing Up writes nothing and takes no lock. It fails with [ErrNewerSchema] for a
// file above Latest, sqlite.ErrBusy when the lock stayed taken, or the
// failing step's error, and then nothing was written.
func (m *Migrator) Up(ctx context.Context) (UpResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.upLatest(ctx)
}

// UpTo applies the pending migrations up to and including version; a file
// already at or above it is left alone. UpTo(Latest) is Up. Below Latest it
// replays the goose migrations 000NN in order (the Go ones' data steps
// included), as the original's versions once did, for tests and rollbacks
// that need an intermediate version; columns upstream added without a
// version are neither added nor needed on the way (Up adds them).
func (m *Migrator) UpTo(ctx context.Context, version int64) (UpResult, error) {
	if version < 1 || version > Latest {
		return UpResult{}, fmt.Errorf("%w: %d (want 1…%d)", ErrInvalidVersion, version, Latest)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if version == Latest {
		return m.upLatest(ctx)
	}
	from, err := m.Version(ctx)
	if err != nil {
		return UpResult{}, err
	}
	start := time.Now()
	res, err := m.gooseUpTo(ctx, version)
	out := UpResult{From: from, To: max(from, version), Migrations: res, Duration: time.Since(start)}
	if err != nil {
		out.To = from
		if len(res) > 0 {
			out.To = res[len(res)-1].Version
		}
	}
	return out, err
}

// gooseUpTo runs goose's UpTo under the migration session, adopting legacy
// columns first.
func (m *Migrator) gooseUpTo(ctx context.Context, version int64) ([]Result, error) {
	if err := m.refuseNewer(ctx, m.db); err != nil {
		return nil, err
	}
	var adopted []Result
	m.arm(func(ctx context.Context, conn *sql.Conn) error {
		adopted = nil
		if err := m.refuseNewer(ctx, conn); err != nil || !m.adoptLegacy {
			return err
		}
		var err error
		adopted, err = adopt(ctx, conn, version, m.store.env)
		return err
	})
	res, err := m.goose.UpTo(ctx, version)
	return append(adopted, results(res, err)...), m.wrap("up", err)
}

// upLatest is Up; the caller holds m.mu.
func (m *Migrator) upLatest(ctx context.Context) (UpResult, error) {
	d, err := loadDeclared()
	if err != nil {
		return UpResult{}, err
	}
	v, err := m.Version(ctx)
	if err != nil {
		return UpResult{}, err
	}
	out := UpResult{From: v, To: v}
	if err := CheckVersion(v); err != nil {
		return out, err
	}
	if v == Latest {
		// The common case, a current file: look without the lock, and
		// write nothing when nothing is missing.
		if m.opts.NoReconcile {
			return out, nil
		}
		live, err := takeSnapshot(ctx, m.db)
		if err != nil {
			return out, err
		}
		if todo, err := pending(ctx, m.db, d, live); err != nil || !todo {
			return out, err
		}
	}
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return out, sqlite.Classify(err)
	}
	defer conn.Close()
	var changes []string
	m.arm(func(ctx context.Context, conn *sql.Conn) error {
		// Under the lock: the file may have moved on since the look above.
		v, hasRow, err := readVersionRow(ctx, conn)
		if err != nil {
			return err
		}
		out.From = v
		if err := CheckVersion(v); err != nil {
			return err
		}
		if v == Latest && m.opts.NoReconcile {
			return nil
		}
		changes, err = upgrade(ctx, conn, d, v, hasRow, m.store.env)
		return err
	})
	start := time.Now()
	if err := m.store.SessionLock(ctx, conn); err != nil {
		out.To = out.From
		return out, m.wrap("up", err)
	}
	if err := m.store.SessionUnlock(ctx, conn); err != nil {
		return out, m.wrap("up", err)
	}
	out.To, out.Changes, out.Duration = Latest, changes, time.Since(start)
	for _, c := range changes {
		m.log.InfoContext(ctx, "schema change", slog.String("change", c))
	}
	return out, nil
}

// Down rolls back the latest applied migration. It returns [ErrNoChange] at
// version 0 and [ErrNewerSchema] for a newer database.
func (m *Migrator) Down(ctx context.Context) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, err := m.Version(ctx)
	if err != nil {
		return Result{}, err
	}
	if cur == 0 {
		return Result{}, ErrNoChange
	}
	res, err := m.downTo(ctx, cur-1)
	if err != nil || len(res) == 0 {
		return Result{}, err
	}
	return res[0], nil
}

// DownTo rolls back every applied migration above version (0 rolls back all).
func (m *Migrator) DownTo(ctx context.Context, version int64) ([]Result, error) {
	if version < 0 || version > Latest {
		return nil, fmt.Errorf("%w: %d (want 0…%d)", ErrInvalidVersion, version, Latest)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.downTo(ctx, version)
}

func (m *Migrator) downTo(ctx context.Context, version int64) ([]Result, error) {
	if err := m.refuseNewer(ctx, m.db); err != nil {
		return nil, err
	}
	m.arm(func(ctx context.Context, conn *sql.Conn) error { return m.refuseNewer(ctx, conn) })
	res, err := m.goose.DownTo(ctx, version)
	return results(res, err), m.wrap("down", err)
}

// Redo rolls back the latest applied migration and applies it again, in two
// transactions; the version goes back up the way UpTo does. It returns
// [ErrNoChange] at version 0.
func (m *Migrator) Redo(ctx context.Context) (Result, UpResult, error) {
	if m.opts.DryRun {
		// Redo is two sessions; after a rolled-back down there is nothing for
		// the up to re-apply, so a dry run could not show the second half.
		return Result{}, UpResult{}, errors.New("migrations: redo has no dry run")
	}
	down, err := m.Down(ctx)
	if err != nil {
		return Result{}, UpResult{}, err
	}
	up, err := m.UpTo(ctx, down.Version)
	return down, up, err
}

// arm sets the session the next provider call's lock will run.
func (m *Migrator) arm(prepare func(ctx context.Context, conn *sql.Conn) error) {
	m.store.mu.Lock()
	m.store.next = session{dryRun: m.opts.DryRun, prepare: prepare}
	m.store.mu.Unlock()
}

// refuseNewer fails with ErrNewerSchema when the database is above Latest.
func (m *Migrator) refuseNewer(ctx context.Context, q database.DBTxConn) error {
	cur, err := readVersion(ctx, q)
	if err != nil {
		return err
	}
	return CheckVersion(cur)
}

// CheckVersion returns an error matching [ErrNewerSchema], saying so in
// words, when version is above [Latest]: a database a newer Hermes wrote,
// which this build must not migrate. Otherwise it returns nil.
func CheckVersion(version int64) error {
	if version > Latest {
		return fmt.Errorf("%w: the database is at schema version %d and this build knows versions up to %d; it was written by a newer Hermes and is left untouched", ErrNewerSchema, version, Latest)
	}
	return nil
}

// wrap turns goose's sentinels into ours and classifies SQLite errors.
func (m *Migrator) wrap(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, goose.ErrNoNextVersion):
		return ErrNoChange
	case errors.Is(err, ErrNewerSchema):
		return err
	}
	var partial *goose.PartialError
	if errors.As(err, &partial) && partial.Failed != nil && partial.Failed.Source != nil {
		return fmt.Errorf("migrate %s: %s: %w", op, path.Base(partial.Failed.Source.Path), sqlite.Classify(partial.Err))
	}
	return fmt.Errorf("migrate %s: %w", op, sqlite.Classify(err))
}

// results converts goose's results; after a failure they are the
// migrations completed before it (goose's PartialError.Applied).
func results(in []*goose.MigrationResult, err error) []Result {
	var partial *goose.PartialError
	if errors.As(err, &partial) {
		in = partial.Applied
	}
	out := make([]Result, 0, len(in))
	for _, r := range in {
		out = append(out, Result{
			Version:   r.Source.Version,
			Name:      path.Base(r.Source.Path),
			Direction: r.Direction,
			Duration:  r.Duration,
		})
	}
	return out
}

// Names returns the file names of the migrations, oldest first: the
// embedded SQL files and the Go migrations (00016_delegate_sessions.go, …).
func Names() ([]string, error) {
	names, err := fs.Glob(FS, "*.sql")
	if err != nil {
		return nil, err
	}
	for _, g := range goMigrations {
		names = append(names, g.name)
	}
	slices.Sort(names)
	return names, nil
}
