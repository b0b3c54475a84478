package pgmigrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sync"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/hermesstate/hermesstate/migrations"
)

// Latest is the schema version the migrations lead to: the SQLite side's
// [migrations.Latest], the version the original calls SCHEMA_VERSION.
const Latest = migrations.Latest

// Options configure a [Migrator]. The zero value (or nil) is the defaults.
type Options struct {
	// DryRun runs Up, UpTo, Down and DownTo for real inside their
	// transaction and rolls it back at the end: the results say what would
	// be applied, and the database is left as it was.
	DryRun bool
	// Logger receives goose's progress at Info level; nil logs nothing.
	Logger *slog.Logger
}

// Migrator runs the embedded PostgreSQL migrations against one database
// through goose, with the version kept in schema_version as on SQLite. Its
// methods are safe for concurrent use (calls are serialised), and any number
// of processes on any number of hosts may migrate the same database at once:
// each Up, UpTo, Down or DownTo is one transaction holding the database's
// migration advisory lock (version_store.go).
//
// The results are package migrations' types, so a caller prints both
// engines' the same way.
type Migrator struct {
	db       *sql.DB
	opts     Options
	store    *versionStore
	goose    *goose.Provider
	mu       sync.Mutex
	versions []int64
}

// New returns a Migrator for db, a database/sql pool on PostgreSQL (pgx's
// stdlib driver: sql.Open("pgx", dsn), or stdlib.OpenDBFromPool(pool) to
// share a *pgxpool.Pool's connections). It takes *sql.DB, not a pgxpool,
// because goose's Provider runs on database/sql and nothing else; the
// migrator holds one connection of it for the length of a call. It fails
// only when the embedded migrations are malformed.
func New(db *sql.DB, opts *Options) (*Migrator, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	vs := &versionStore{}
	p, err := goose.NewProvider(goose.DialectCustom, db, FS,
		goose.WithStore(vs),
		goose.WithSessionLocker(vs),
		// goose must not open transactions of its own: every statement runs
		// in the session transaction the version store opened.
		goose.WithIsolateDDL(true),
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(logger),
		goose.WithVerbose(o.Logger != nil),
	)
	if err != nil {
		return nil, err
	}
	m := &Migrator{db: db, opts: o, store: vs, goose: p}
	for _, src := range p.ListSources() {
		m.versions = append(m.versions, src.Version)
	}
	vs.versions = m.versions
	if len(m.versions) == 0 || m.versions[len(m.versions)-1] != Latest {
		return nil, fmt.Errorf("pgmigrations: embedded migrations end at %v, Latest is %d", m.versions, Latest)
	}
	return m, nil
}

// Version returns the database's schema version (0 for a new database). It
// takes no lock and writes nothing.
func (m *Migrator) Version(ctx context.Context) (int64, error) {
	return readVersion(ctx, m.db)
}

// Status lists every embedded migration, oldest first, with whether the
// database has it. It takes no lock and writes nothing.
func (m *Migrator) Status(ctx context.Context) ([]migrations.Status, error) {
	cur, err := m.Version(ctx)
	if err != nil {
		return nil, err
	}
	return Statuses(cur), nil
}

// Statuses lists every embedded migration, oldest first, marking those at
// or below version as applied: the status of a database at that version.
func Statuses(version int64) []migrations.Status {
	var out []migrations.Status
	for _, name := range Names() {
		v, _ := goose.NumericComponent(name) // New checked every name
		out = append(out, migrations.Status{Version: v, Name: name, Applied: v <= version})
	}
	return out
}

// Names returns the file names of the migrations, oldest first.
func Names() []string {
	entries, _ := FS.ReadDir(".") // an embed.FS root always reads
	var out []string
	for _, e := range entries {
		if _, err := goose.NumericComponent(e.Name()); err == nil && path.Ext(e.Name()) == ".sql" {
			out = append(out, e.Name())
		}
	}
	return out
}

// Up brings the database to Latest in one transaction under the advisory
// lock. A database already at Latest is only looked at: no lock, no
// write. Many processes may run Up on one new database at once: one applies
// the migrations, the others wait for it and find nothing to do. It fails
// with an error matching [migrations.ErrNewerSchema] for a database above
// Latest, [migrations.ErrInvalidVersion] for one at a version PostgreSQL's
// migrations never write, [ErrNotUTF8] for a database whose encoding or
// ctype is not UTF-8 (see [CheckUTF8]), or the failing statement's error (a
// *pgconn.PgError inside), and then nothing was written.
func (m *Migrator) Up(ctx context.Context) (migrations.UpResult, error) {
	return m.UpTo(ctx, Latest)
}

// UpTo applies the pending migrations up to and including version, in one
// transaction, as Up does; a database already at or above it is left alone.
// Below Latest there is nothing to apply on PostgreSQL (its first migration
// is 21). It fails with [migrations.ErrInvalidVersion] for a version outside
// 1…Latest, and as Up does.
func (m *Migrator) UpTo(ctx context.Context, version int64) (migrations.UpResult, error) {
	if version < 1 || version > Latest {
		return migrations.UpResult{}, fmt.Errorf("%w: %d (want 1…%d)", migrations.ErrInvalidVersion, version, Latest)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	from, err := m.Version(ctx)
	if err != nil {
		return migrations.UpResult{}, err
	}
	out := migrations.UpResult{From: from, To: from}
	// Nothing embedded above from up to version (below 21 there is no
	// migration at all): no lock, no write.
	if err := m.checkVersion(from); err != nil || m.store.belowOrAt(version) <= from {
		return out, err
	}
	var enc, ctype string
	if err := m.db.QueryRowContext(ctx, sqlDatabaseCtype).Scan(&enc, &ctype); err != nil {
		return out, err
	}
	if err := utf8Ctype(enc, ctype); err != nil {
		return out, err
	}
	start := time.Now()
	m.arm(func(ctx context.Context, conn *sql.Conn) error {
		// Under the lock: another migrator may have moved the database on
		// since the look above.
		v, err := readVersion(ctx, conn)
		if err != nil {
			return err
		}
		out.From = v
		return m.checkVersion(v)
	})
	res, err := m.goose.UpTo(ctx, version)
	out.Migrations = results(res, err)
	out.Duration = time.Since(start)
	out.To = out.From
	if n := len(out.Migrations); n > 0 {
		out.To = out.Migrations[n-1].Version
	}
	return out, m.wrap("up", err)
}

// Down rolls back the latest applied migration in one transaction. It
// returns [migrations.ErrNoChange] at version 0 and an error matching
// [migrations.ErrNewerSchema] for a newer database.
func (m *Migrator) Down(ctx context.Context) (migrations.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, err := m.Version(ctx)
	if err != nil {
		return migrations.Result{}, err
	}
	if err := m.checkVersion(cur); err != nil {
		return migrations.Result{}, err
	}
	if cur == 0 {
		return migrations.Result{}, migrations.ErrNoChange
	}
	res, err := m.downTo(ctx, m.store.below(cur))
	if err != nil || len(res) == 0 {
		return migrations.Result{}, err
	}
	return res[0], nil
}

// DownTo rolls back every applied migration above version (0 rolls back
// all), in one transaction. It fails with [migrations.ErrInvalidVersion] for
// a version outside 0…Latest, and as Down does.
func (m *Migrator) DownTo(ctx context.Context, version int64) ([]migrations.Result, error) {
	if version < 0 || version > Latest {
		return nil, fmt.Errorf("%w: %d (want 0…%d)", migrations.ErrInvalidVersion, version, Latest)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, err := m.Version(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.checkVersion(cur); err != nil {
		return nil, err
	}
	return m.downTo(ctx, version)
}

func (m *Migrator) downTo(ctx context.Context, version int64) ([]migrations.Result, error) {
	m.arm(func(ctx context.Context, conn *sql.Conn) error {
		v, err := readVersion(ctx, conn)
		if err != nil {
			return err
		}
		return m.checkVersion(v)
	})
	res, err := m.goose.DownTo(ctx, version)
	return results(res, err), m.wrap("down", err)
}

// Redo rolls back the latest applied migration and applies it again, in two
// transactions (as on SQLite), and has no dry run. It returns
// [migrations.ErrNoChange] at version 0.
func (m *Migrator) Redo(ctx context.Context) (migrations.Result, migrations.UpResult, error) {
	if m.opts.DryRun {
		return migrations.Result{}, migrations.UpResult{}, errors.New("pgmigrations: redo has no dry run")
	}
	down, err := m.Down(ctx)
	if err != nil {
		return migrations.Result{}, migrations.UpResult{}, err
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

// checkVersion refuses a database above Latest ([migrations.CheckVersion])
// and one at a version no embedded migration writes (0 is a new database):
// goose would plan from a version that means nothing here.
func (m *Migrator) checkVersion(v int64) error {
	if err := migrations.CheckVersion(v); err != nil {
		return err
	}
	if v != 0 && m.store.belowOrAt(v) != v {
		return fmt.Errorf("%w: the database is at schema version %d, which PostgreSQL's migrations never write (they are %v)", migrations.ErrInvalidVersion, v, m.versions)
	}
	return nil
}

// belowOrAt returns the highest embedded version at or under v, 0 when
// there is none.
func (s *versionStore) belowOrAt(v int64) int64 { return s.below(v + 1) }

// wrap turns goose's errors into the migrations package's sentinels and
// names the failing file.
func (m *Migrator) wrap(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, goose.ErrNoNextVersion):
		return migrations.ErrNoChange
	case errors.Is(err, migrations.ErrNewerSchema), errors.Is(err, migrations.ErrInvalidVersion):
		return err
	}
	var partial *goose.PartialError
	if errors.As(err, &partial) && partial.Failed != nil && partial.Failed.Source != nil {
		return fmt.Errorf("migrate %s: %s: %w", op, path.Base(partial.Failed.Source.Path), partial.Err)
	}
	return fmt.Errorf("migrate %s: %w", op, err)
}

// results converts goose's results. After a failure there are none: the
// session rolled back the migrations goose completed before it too.
func results(in []*goose.MigrationResult, err error) []migrations.Result {
	if err != nil || len(in) == 0 {
		return nil
	}
	out := make([]migrations.Result, 0, len(in))
	for _, r := range in {
		out = append(out, migrations.Result{
			Version:   r.Source.Version,
			Name:      path.Base(r.Source.Path),
			Direction: r.Direction,
			Duration:  r.Duration,
		})
	}
	return out
}
