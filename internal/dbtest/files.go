package dbtest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"
)

// WriteLock is the write lock of a database file held by a connection of
// its own (BEGIN IMMEDIATE), as another process would hold it.
type WriteLock struct {
	conn *sql.Conn
	db   *sql.DB
	once sync.Once
}

// HoldWriteLock takes the write lock of the file at path on a new plain
// connection and returns it; the test's cleanup releases it if the test did
// not.
func HoldWriteLock(t testing.TB, path string) *WriteLock {
	t.Helper()
	d, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := d.Conn(context.Background())
	if err != nil {
		d.Close()
		t.Fatal(err)
	}
	// Hand-written: the lock itself, on a connection no driver option set up.
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		d.Close()
		t.Fatal(err)
	}
	l := &WriteLock{conn: conn, db: d}
	t.Cleanup(l.Release)
	return l
}

// HoldWriteLockFor takes the write lock like HoldWriteLock and releases it
// by itself after d.
func HoldWriteLockFor(t testing.TB, path string, d time.Duration) *WriteLock {
	t.Helper()
	l := HoldWriteLock(t, path)
	time.AfterFunc(d, l.Release)
	return l
}

// Release commits the lock's empty transaction and closes its connection.
// Calls after the first do nothing.
func (l *WriteLock) Release() {
	l.once.Do(func() {
		l.conn.ExecContext(context.Background(), "COMMIT")
		l.conn.Close()
		l.db.Close()
	})
}

// CopyFile copies the file src to dst, which must not exist (mode 0600),
// and returns dst. Copy only closed, checkpointed databases: a live one's
// -wal is not copied.
func CopyFile(t testing.TB, src, dst string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// FileHash returns the SHA-256 of the file at path.
func FileHash(t testing.TB, path string) [sha256.Size]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// WALSize returns the size of the database's -wal file, or -1 when there is
// none.
func WALSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// Plain opens dsn (a path, or a file: URI with its parameters) through the
// driver with none of the store's setup: no pragmas, no retry, one
// connection, closed when the test ends at the latest. It is how another
// tool, or a hand edit, opens the file.
func Plain(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	d, err := sql.Open("sqlite3", dsn)
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	t.Cleanup(func() { d.Close() })
	return d
}
