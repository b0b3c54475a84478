package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbpath"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is an open state database: one writer connection, used by every
// write through one retrying transaction helper, and a pool of read-only
// connections that read concurrently with it. A Store is safe for concurrent
// use by many goroutines; several Stores and processes may share one file.
type Store struct {
	path string
	opts Options
	log  *slog.Logger
	w    *sql.DB // the single writer connection (SQLite)
	r    *sql.DB // read-only pool (SQLite)
	// pg is the pool of a store opened on PostgreSQL (nil on SQLite);
	// pgReadOnly is Options.ReadOnly there.
	pg         *pgxpool.Pool
	pgReadOnly bool
	q          backend.Backend
	retry      sqlite.Retry

	// mu is held shared by every call and exclusively by Close, so Close
	// waits for calls in flight and every later call sees closed.
	mu     sync.RWMutex
	closed bool

	// group is the queue of writes waiting for a shared transaction
	// (groupcommit.go).
	group groupQueue
	// directWrites, set only by tests and benchmarks before any write,
	// makes every write take the path before group commit: its own
	// transaction, no queue.
	directWrites bool
	// beforeGroupBegin, set only by tests before any write, is called
	// before each BEGIN of a transaction shared by two or more writes.
	beforeGroupBegin func()
	// stageChecked is set once the file's messages table was found to
	// have AUTOINCREMENT, which staged inserts need, and stageRefused once
	// it was found without (groupcommit_stage.go).
	stageChecked, stageRefused atomic.Bool

	stats struct {
		writes, groups, retries, busy, checkpoints, optimizes atomic.Uint64
	}

	// searchConns is what split searches hold of the read pool
	// (search_parallel.go).
	searchConns searchConns
	// orders is the exports' column order, kept while the schema stays
	// (exportOrder).
	orders orderCache
}

// Open opens the state database at path with opts (nil means the defaults
// on [Options]).
//
// An empty path is DefaultPath(): its directories are created when missing
// (0700, as the original creates its home). Any other path must be in a
// directory that exists ([ErrNoDirectory]), so that a mistyped path never
// becomes a new database, and must not be a URL ([ErrURL]) unless it is a
// PostgreSQL one: a postgres:// or postgresql:// URL opens the store on that
// PostgreSQL database instead (IsPostgresURL; the database must exist and
// be UTF-8, [ErrNotUTF8]; it is migrated to version 21 by
// migrations/postgres unless opts.SkipMigrations or ReadOnly; README
// "PostgreSQL" lists what differs).
//
// Unless opts.SkipMigrations is set it brings the file to the latest schema
// with [migrations.Migrator.Up]: a missing file is created at version 21,
// byte for byte as the original creates it; a file an older Hermes wrote is
// migrated to exactly what the original makes of it (one write transaction,
// safe against other processes opening it at the same moment); columns,
// indexes and FTS indexes missing from a current file are added. Opening a
// current file takes no write lock and changes nothing. A file written by a
// newer Hermes (schema_version above 21) is refused with [ErrNewerSchema]
// before anything can write, unless opts.ReadOnly (read it) or
// opts.WriteNewerSchema (see its warning) is set.
//
// Errors match [ErrNoDirectory], [ErrURL], [ErrNewerSchema], [ErrNotDatabase]
// (also for an empty, 0-byte file), [ErrCorrupt] (a truncated file),
// [ErrForeignWAL], [ErrCantOpen], [ErrReadOnly] (a file or directory this
// process may not write), [ErrBusy], [ErrNoFTS5], [ErrSQLiteVersion] or
// [ErrNotWAL], or are a migration's error; with Options.ReadOnly, a missing
// file matches fs.ErrNotExist and a file below version 21 [ErrOlderSchema].
// A refused file is left as it was. Every error reads "store: open PATH: …".
func Open(ctx context.Context, path string, opts *Options) (_ *Store, err error) {
	o := opts.withDefaults()
	explicit := path != ""
	if !explicit {
		if path, err = dbpath.Default(); err != nil {
			wrap(&err, "open the default database")
			return nil, err
		}
	}
	defer wrap(&err, "open "+path)
	if explicit && IsPostgresURL(path) {
		return openPostgres(ctx, path, o)
	}
	if explicit && dbpath.IsURL(path) {
		return nil, ErrURL
	}
	s := &Store{
		path: path,
		opts: o,
		log:  o.Logger,
		q:    backend.SQLite(),
		retry: sqlite.Retry{
			Attempts: o.WriteAttempts,
			MinDelay: o.RetryMinDelay,
			MaxDelay: o.RetryMaxDelay,
		},
	}
	s.retry.OnRetry = func(int, error) { s.stats.retries.Add(1) }
	cfg := sqlite.Config{BusyTimeout: o.BusyTimeout, Synchronous: o.Synchronous, Retry: s.retry,
		OnWALFallback: s.warnWALFallback}
	if o.ReadOnly {
		return s.openReadOnly(ctx, cfg)
	}
	if explicit {
		if err := dbpath.DirExists(path); err != nil {
			return nil, err
		}
	} else if err := dbpath.MakeDefaultDir(path); err != nil {
		return nil, err
	}
	newer, err := s.checkNewer(ctx, cfg)
	if err != nil {
		return nil, err
	}

	w, err := sqlite.OpenWriter(ctx, path, cfg)
	if err != nil {
		return nil, err
	}
	s.w = w
	if !o.SkipMigrations && !newer {
		if err := s.migrate(ctx); err != nil {
			w.Close()
			return nil, err
		}
	}
	r, err := sqlite.OpenReader(ctx, path, cfg, o.ReadConnections+1)
	if err != nil {
		w.Close()
		return nil, err
	}
	s.r = r
	return s.checkSearchIndexes(ctx)
}

// warnWALFallback logs, once per file and process (as upstream), that the
// file's filesystem refused WAL and the store uses the DELETE journal.
func (s *Store) warnWALFallback(cause error) {
	s.log.Warn("WAL journal_mode unsupported on this filesystem; falling back to journal_mode=DELETE "+
		"(slower rollback-journal mode; reduces concurrency but works on NFS/SMB/FUSE; see https://www.sqlite.org/wal.html)",
		slog.String("path", s.path), slog.Any("error", cause))
}

// checkNewer looks at the version of an existing file before anything can
// write to it (opening the writer would switch a rollback-journal file to
// WAL, rewriting its header): ErrNewerSchema for a file above Latest,
// unless Options.WriteNewerSchema is set, when it reports true. The look
// leaves no file behind (sqlite.Peek); Up re-checks under the write lock.
func (s *Store) checkNewer(ctx context.Context, cfg sqlite.Config) (bool, error) {
	var v int64
	err := sqlite.Peek(ctx, s.path, cfg, func(r *sql.DB) error {
		var err error
		v, err = migrations.ReadVersion(ctx, r)
		return err
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case v <= SchemaVersionLatest:
		return false, nil
	case !s.opts.WriteNewerSchema:
		return false, newerSchemaError(v)
	}
	s.log.WarnContext(ctx, "writing a database a newer Hermes wrote (Options.WriteNewerSchema); not migrated",
		slog.String("path", s.path), slog.Int64("version", v))
	return true, nil
}

// openReadOnly opens only the read-only pool, on a file that must exist
// and be at version 21 or above (a newer file's unknown columns are
// ignored by every read; an older one lacks columns the reads need).
func (s *Store) openReadOnly(ctx context.Context, cfg sqlite.Config) (*Store, error) {
	r, err := sqlite.OpenReadOnly(ctx, s.path, cfg, s.opts.ReadConnections+1)
	if err != nil {
		return nil, err
	}
	v, err := migrations.ReadVersion(ctx, r)
	if err != nil {
		r.Close()
		return nil, err
	}
	if v < SchemaVersionLatest {
		r.Close()
		return nil, olderSchemaError(s.path, v)
	}
	s.r = r
	return s.checkSearchIndexes(ctx)
}

// errOpenedReadOnly is every write's error on a store opened with
// Options.ReadOnly.
var errOpenedReadOnly = fmt.Errorf("%w (opened with Options.ReadOnly)", ErrReadOnly)

// writer returns the writer connection, or ErrReadOnly for a store opened
// with Options.ReadOnly.
func (s *Store) writer() (*sql.DB, error) {
	if s.w == nil {
		return nil, errOpenedReadOnly
	}
	return s.w, nil
}

// migrate runs Up, which migrates and reconciles, on the writer.
func (s *Store) migrate(ctx context.Context) error {
	m, err := migrations.New(s.w, &migrations.Options{
		Retry: migrations.Retry{
			Attempts: s.retry.Attempts, MinDelay: s.retry.MinDelay, MaxDelay: s.retry.MaxDelay, OnRetry: s.retry.OnRetry,
		},
		Logger:     s.opts.Logger,
		HermesHome: s.opts.HermesHome,
	})
	if err != nil {
		return err
	}
	res, err := m.Up(ctx)
	return s.migrated(ctx, res, err)
}

// migrated reports the outcome of an Up on either engine: ErrNewerSchema
// as Open's error (a newer build migrated the database after Open looked),
// another failure as it is, a change of version in the log.
func (s *Store) migrated(ctx context.Context, res migrations.UpResult, err error) error {
	if errors.Is(err, migrations.ErrNewerSchema) {
		return newerSchemaError(res.From)
	}
	if err != nil {
		return err
	}
	if res.From != res.To {
		s.log.InfoContext(ctx, "migrated", slog.Int64("from", res.From), slog.Int64("to", res.To),
			slog.Int("changes", len(res.Changes)), slog.Duration("duration", res.Duration))
	}
	return nil
}

// SchemaVersionLatest is the schema version this build creates and migrates
// to (21), for callers that compare it with SchemaVersion or Health.
const SchemaVersionLatest = migrations.Latest

// Path returns the database file's path as given to Open (or DefaultPath()).
func (s *Store) Path() string { return s.path }

// SchemaVersion returns the version recorded in schema_version: 21 after
// Open migrated the file, more for a file a newer Hermes wrote (opened
// ReadOnly or with WriteNewerSchema). It returns ErrClosed after Close.
func (s *Store) SchemaVersion(ctx context.Context) (_ int64, err error) {
	defer wrap(&err, "read schema version")
	if err := s.acquire(); err != nil {
		return 0, err
	}
	defer s.release()
	if s.pg != nil {
		return pgmigrations.ReadVersionOf(ctx, s.pg)
	}
	return migrations.ReadVersion(ctx, s.r)
}

// Close runs a TRUNCATE WAL checkpoint, as upstream Hermes closes, and
// closes every connection: every committed write is in the database file
// and the -wal is cut to zero bytes even while other processes keep the
// file open. The checkpoint waits up to the busy timeout for their read
// transactions and its failure is ignored (the writes are committed in the
// WAL either way). Close waits for calls in flight. A second Close returns
// nil; any other call after Close returns ErrClosed.
func (s *Store) Close() (err error) {
	defer wrap(&err, "close")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.pg != nil {
		s.pg.Close()
		return nil
	}
	if s.w == nil {
		return s.r.Close()
	}
	if _, err := s.checkpoint(context.Background(), CheckpointTruncate); err != nil {
		s.log.Debug("checkpoint on close failed", slog.Any("error", err))
	}
	return errors.Join(s.r.Close(), s.w.Close())
}

// acquire admits one call, or returns ErrClosed; release ends it.
func (s *Store) acquire() error {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

func (s *Store) release() { s.mu.RUnlock() }
