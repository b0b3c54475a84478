package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"net/url"
	"os"
)

// OpenReadOnly is the one read-only open sequence, used by read-only stores
// and by cmd/migrate: the file must exist (os.Stat, never opened: see the
// package doc), its -wal must belong to it ([CheckWAL]), then a pool of up
// to maxConns read-only connections ([OpenReader]). A missing file matches
// fs.ErrNotExist; otherwise it fails like OpenReader. SQLite may create the
// -wal and -shm files a WAL reader needs beside the file; [Peek] leaves
// none.
func OpenReadOnly(ctx context.Context, path string, c Config, maxConns int) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	if err := CheckWAL(ctx, path); err != nil {
		return nil, err
	}
	return OpenReader(ctx, path, c, maxConns)
}

// Peek runs fn on one read-only connection to the existing file at path
// and closes it, leaving no file behind that was not there: a look before
// anything may write (the schema version of a file this build must not
// touch). When neither a -wal nor a -journal is beside the file, no
// connection has it open in WAL mode and no write is under way, and it is
// opened immutable (nothing created, nothing locked); otherwise through
// [OpenReadOnly], whose side files already exist. A caller that goes on to
// write re-checks what it read under the write lock. It fails like
// OpenReadOnly.
func Peek(ctx context.Context, path string, c Config, fn func(*sql.DB) error) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	db, err := openPeek(ctx, path, c)
	if err != nil {
		return err
	}
	err = fn(db)
	return errors.Join(err, db.Close())
}

func openPeek(ctx context.Context, path string, c Config) (*sql.DB, error) {
	for _, side := range []string{"-wal", "-journal"} {
		if _, err := os.Stat(path + side); !errors.Is(err, fs.ErrNotExist) {
			return OpenReadOnly(ctx, path, c, 1)
		}
	}
	if err := checkLinkedLibrary(); err != nil {
		return nil, err
	}
	if err := notADirectory(path); err != nil {
		return nil, err
	}
	if err := checkFile(path, false); err != nil {
		return nil, err
	}
	uri, err := fileURI(path)
	if err != nil {
		return nil, err
	}
	// immutable=1: SQLite reads the file as it is, with no lock and no
	// -wal/-shm; right here, with neither beside it, that is the file.
	v := url.Values{}
	v.Set("mode", "ro")
	v.Set("immutable", "1")
	db, err := sql.Open("sqlite3", uri+"?"+v.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err := setup(ctx, db, c.Retry, ""); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
