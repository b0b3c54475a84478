package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
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
	// Retry is the policy for taking the write lock; zero means
	// [sqlite.DefaultRetry].
	Retry sqlite.Retry
	// Logger receives goose's progress and the adoption/reconcile steps at
	// Info level; nil logs nothing.
	Logger *slog.Logger
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
	if o.Retry.Attempts == 0 {
		o.Retry = sqlite.DefaultRetry()
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	vs := &versionStore{retry: o.Retry}
	p, err := goose.NewProvider(goose.DialectCustom, db, FS,
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

// Up applies every pending migration. A file the Python original left at
// version N gets N+1…Latest; see adopt.go for files whose columns run ahead
// of their version. It returns the migrations applied, in order (none when
// the file is current), and an error matching [ErrNewerSchema],
// sqlite.ErrBusy, or the failing migration's error. Migrations completed
// before a failure stay applied and are returned with the error.
func (m *Migrator) Up(ctx context.Context) ([]Result, error) {
	return m.UpTo(ctx, Latest)
}

// UpTo applies the pending migrations up to and including version; a file
// already at or above it is left alone (no results, no error).
func (m *Migrator) UpTo(ctx context.Context, version int64) ([]Result, error) {
	if version < 1 || version > Latest {
		return nil, fmt.Errorf("%w: %d (want 1…%d)", ErrInvalidVersion, version, Latest)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
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
		adopted, err = adopt(ctx, conn, version, m.log)
		return err
	})
	res, err := m.goose.UpTo(ctx, version)
	return append(adopted, results(res, err)...), m.wrap("up", err)
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
// transactions. It returns [ErrNoChange] at version 0.
func (m *Migrator) Redo(ctx context.Context) ([]Result, error) {
	if m.opts.DryRun {
		// Redo is two sessions; after a rolled-back down there is nothing for
		// the up to re-apply, so a dry run could not show the second half.
		return nil, errors.New("migrations: redo has no dry run")
	}
	down, err := m.Down(ctx)
	if err != nil {
		return nil, err
	}
	up, err := m.UpTo(ctx, down.Version)
	return append([]Result{down}, up...), err
}

// Reconcile adds what the declared v11 schema has and the database lacks; see
// [Reconcile].
func (m *Migrator) Reconcile(ctx context.Context) ([]string, error) {
	if m.opts.DryRun {
		return nil, nil
	}
	return Reconcile(ctx, m.db, m.opts.Retry, m.log)
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

// Names returns the file names of the embedded migrations, oldest first.
func Names() ([]string, error) {
	return fs.Glob(FS, "*.sql")
}
