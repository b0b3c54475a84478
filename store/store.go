package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// Store is an open state database: one writer connection, used by every
// write through one retrying transaction helper, and a pool of read-only
// connections that read concurrently with it. A Store is safe for concurrent
// use by many goroutines; several Stores and processes may share one file.
type Store struct {
	path  string
	opts  Options
	log   *slog.Logger
	w     *sql.DB // the single writer connection
	r     *sql.DB // read-only pool
	q     *db.Queries
	retry sqlite.Retry

	// mu is held shared by every call and exclusively by Close, so Close
	// waits for calls in flight and every later call sees closed.
	mu     sync.RWMutex
	closed bool

	stats struct {
		writes, retries, busy, checkpoints atomic.Uint64
	}
}

// Open opens the state database at path (DefaultPath() when path is empty),
// creating it and its parent directories when missing, with opts (nil means
// the defaults on [Options]). Unless opts.SkipMigrations is set it brings the
// file to the latest schema: a new file is created at version 11, a file an
// older Hermes wrote is migrated (goose, one write transaction, safe against
// other processes opening it at the same moment), and columns, indexes and
// FTS indexes missing from the file are added (the reconcile). A file written
// by a newer Hermes is opened as it is, never downgraded. Opening a current
// file takes no write lock and changes nothing.
//
// Errors match [ErrNotDatabase] (also for an empty, 0-byte file),
// [ErrCorrupt] (a truncated file), [ErrForeignWAL], [ErrCantOpen],
// [ErrReadOnly] (a file or directory this process may not write),
// [ErrBusy], [ErrNoFTS5], [ErrSQLiteVersion] or [ErrNotWAL], or are a
// migration's error; with Options.ReadOnly, a missing file matches
// fs.ErrNotExist. A refused file is left as it was.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	o := opts.withDefaults()
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	s := &Store{
		path: path,
		opts: o,
		log:  o.Logger,
		q:    db.New(),
		retry: sqlite.Retry{
			Attempts: o.WriteAttempts,
			MinDelay: o.RetryMinDelay,
			MaxDelay: o.RetryMaxDelay,
		},
	}
	s.retry.OnRetry = func(int, error) { s.stats.retries.Add(1) }
	cfg := sqlite.Config{BusyTimeout: o.BusyTimeout, Synchronous: o.Synchronous, Retry: s.retry}
	if o.ReadOnly {
		return s.openReadOnly(ctx, cfg)
	}

	w, err := sqlite.OpenWriter(ctx, path, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s.w = w
	if !o.SkipMigrations {
		if err := s.migrate(ctx); err != nil {
			w.Close()
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
	}
	r, err := sqlite.OpenReader(ctx, path, cfg, o.ReadConnections)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	s.r = r
	return s.checkSearchIndexes(ctx)
}

// openReadOnly opens only the read-only pool, on a file that must exist:
// Stat, not open, so no descriptor of ours ever touches the file outside
// SQLite (closing one would drop SQLite's POSIX locks).
func (s *Store) openReadOnly(ctx context.Context, cfg sqlite.Config) (*Store, error) {
	if _, err := os.Stat(s.path); err != nil {
		return nil, fmt.Errorf("store: open read-only: %w", err)
	}
	if err := sqlite.CheckWAL(ctx, s.path); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	r, err := sqlite.OpenReader(ctx, s.path, cfg, s.opts.ReadConnections)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s.r = r
	return s.checkSearchIndexes(ctx)
}

// writer returns the writer connection, or ErrReadOnly for a store opened
// with Options.ReadOnly.
func (s *Store) writer() (*sql.DB, error) {
	if s.w == nil {
		return nil, fmt.Errorf("store: opened with Options.ReadOnly: %w", ErrReadOnly)
	}
	return s.w, nil
}

// migrate applies pending migrations and the reconcile on the writer.
func (s *Store) migrate(ctx context.Context) error {
	m, err := migrations.New(s.w, &migrations.Options{Retry: s.retry, Logger: s.opts.Logger})
	if err != nil {
		return err
	}
	applied, err := m.Up(ctx)
	switch {
	case errors.Is(err, migrations.ErrNewerSchema):
		s.log.InfoContext(ctx, "database schema is newer than this build; opened without migrating", slog.String("path", s.path))
	case err != nil:
		return err
	}
	for _, r := range applied {
		s.log.InfoContext(ctx, "applied migration", slog.String("name", r.Name), slog.Duration("duration", r.Duration))
	}
	_, err = m.Reconcile(ctx)
	return err
}

// SchemaVersionLatest is the schema version this build creates and migrates
// to (11), for callers that compare it with SchemaVersion or Health.
const SchemaVersionLatest = migrations.Latest

// Path returns the database file's path as given to Open (or DefaultPath()).
func (s *Store) Path() string { return s.path }

// SchemaVersion returns the version recorded in schema_version: 11 after
// Open migrated the file, more for a file a newer Hermes wrote. It returns
// ErrClosed after Close.
func (s *Store) SchemaVersion(ctx context.Context) (int64, error) {
	if err := s.acquire(); err != nil {
		return 0, err
	}
	defer s.release()
	return migrations.ReadVersion(ctx, s.r)
}

// Close runs a PASSIVE WAL checkpoint (its failure is ignored, as in the
// original) and closes every connection. It waits for calls in flight. A
// second Close returns nil; any other call after Close returns ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.w == nil {
		return s.r.Close()
	}
	if _, err := s.checkpoint(context.Background(), CheckpointPassive); err != nil {
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
