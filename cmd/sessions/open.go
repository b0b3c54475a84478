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
// a missing file is "no database at PATH", never created. readOnly opens it
// read-only: nothing migrated, nothing written.
func openExisting(ctx context.Context, e *env, readOnly bool) (*store.Store, error) {
	if _, err := os.Stat(e.path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", errNoDatabase, e.path)
	}
	s, err := store.Open(ctx, e.path, &store.Options{SkipMigrations: readOnly})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", errNoDatabase, e.path)
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
	return errors.Join(fn(s), s.Close())
}
