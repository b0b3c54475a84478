package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hermesstate/hermesstate/store"
)

// errNoDatabase is a command's database file missing.
var errNoDatabase = errors.New("no database")

// openExisting opens the database for a command that needs it to exist:
// a missing file is "no database at PATH", never created. readOnly (the
// reading commands) opens it with store.Options.ReadOnly: nothing migrated,
// nothing written, no write lock taken; every read works on a file a newer
// Hermes wrote, and a file below version 21 fails with one line naming its
// version and the upgrade command (store.ErrOlderSchema). The writing
// commands open it for writing: a newer file is refused with
// store.ErrNewerSchema's message, untouched.
func openExisting(ctx context.Context, e *env, readOnly bool) (*store.Store, error) {
	// Stat first for the writing commands too: store.Open would create the
	// file. (A PostgreSQL database is the server's: Open reports one that
	// is missing.)
	if store.IsPostgresURL(e.path) {
		return openStore(ctx, e.path, &store.Options{ReadOnly: readOnly})
	}
	if _, err := os.Stat(e.path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", errNoDatabase, e.path)
	}
	return openStore(ctx, e.path, &store.Options{ReadOnly: readOnly})
}

// openStore is store.Open with the two commonest failures said plainly.
// The default location is opened as store.Open's default (its directories
// may be created, by import); any other path was given with -db and
// cli.DatabasePath has checked that its directory exists.
func openStore(ctx context.Context, path string, opts *store.Options) (*store.Store, error) {
	open := path
	if def, err := store.DefaultPath(); err == nil && def == path {
		open = ""
	}
	s, err := store.Open(ctx, open, opts)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w at %s", errNoDatabase, path)
	case errors.Is(err, store.ErrNotDatabase):
		return nil, fmt.Errorf("%s is not a SQLite database", path)
	}
	return s, err
}

// withStore runs fn on the database opened by openExisting and closes it,
// reporting the first error.
func withStore(ctx context.Context, e *env, readOnly bool, fn func(*store.Store) error) error {
	s, err := openExisting(ctx, e, readOnly)
	if err != nil {
		return err
	}
	err = fn(s)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// errIsDatabase is a command's input or output file being the database
// itself (or its -wal or -shm).
var errIsDatabase = errors.New("is the database itself")

// notTheDatabase refuses a file a command reads or writes by its own means
// (import's input, export's -o) when it is the database at dbPath or one of
// its -wal/-shm files: reading it as an import is nonsense, replacing it by
// an export would destroy it, and a descriptor this process closed on it
// would drop SQLite's locks. Files are compared by identity (os.SameFile),
// so other spellings and links of the path are caught too. A path that does
// not exist yet is fine.
func notTheDatabase(path, dbPath string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	for _, p := range []string{dbPath, dbPath + "-wal", dbPath + "-shm"} {
		if di, err := os.Stat(p); err == nil && os.SameFile(fi, di) {
			return fmt.Errorf("%s %w (%s)", path, errIsDatabase, p)
		}
	}
	return nil
}
