package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3"
)

// The journal modes the writer ends up in.
const (
	// JournalWAL: readers run beside the writer. Every filesystem that
	// gives SQLite working shared memory and POSIX locks.
	JournalWAL = "wal"
	// JournalDelete: SQLite's rollback journal, for a filesystem that
	// refuses WAL's locking or shared memory (NFS, SMB, some FUSE mounts).
	// A reader waits while a write commits, and the writer while a read
	// runs; nothing else changes.
	JournalDelete = "delete"
)

// IsWALRefused reports whether err is SQLite refusing WAL on this file's
// filesystem, the failures upstream falls back to the DELETE journal for
// (its markers "locking protocol" and "not authorized"), told by result
// code:
//
//   - SQLITE_PROTOCOL: the WAL-index locks kept failing (SQLite gives up
//     after about 100 tries, some 10 s): locks that do not work, as on NFS.
//   - SQLITE_AUTH: the journal_mode pragma was denied.
//   - SQLITE_IOERR_SHMOPEN, SQLITE_IOERR_SHMLOCK, SQLITE_IOERR_SHMMAP: the
//     -shm file cannot be opened, locked or mapped (a FUSE mount without
//     shared mmap, a filesystem without byte-range locks).
//
// Never any other I/O error: a plain SQLITE_IOERR (EIO) is usually
// transient, and downgrading one process while the others keep WAL is the
// mixed-journal pattern that corrupts a file (upstream's "Bug D"); nor
// SQLITE_IOERR_SHMSIZE, which SQLite documents as a full disk.
func IsWALRefused(err error) bool {
	code, ext, ok := Code(err)
	if !ok {
		return false
	}
	switch {
	case code == sqlite3.ErrProtocol, code == sqlite3.ErrAuth:
		return true
	case ext == sqlite3.ErrIoErrSHMOpen, ext == sqlite3.ErrIoErrSHMLock, ext == sqlite3.ErrIoErrSHMMap:
		return true
	}
	return false
}

// ErrWALRefused is the cause a WAL fallback reports when SQLite answered
// the journal_mode pragma with another mode instead of an error (a VFS
// without shared memory, such as unix-none, does so).
var ErrWALRefused = errors.New("SQLite kept the rollback journal: the file's VFS has no shared memory for WAL")

// The statements of the journal probe. Hand-written: pragmas.
const (
	journalModeSQL       = "PRAGMA journal_mode"
	journalModeWALSQL    = "PRAGMA journal_mode=WAL"
	journalModeDeleteSQL = "PRAGMA journal_mode=DELETE"
)

// walFallbackWarned holds the absolute paths a WAL fallback was reported
// for in this process: upstream warns once per process and database.
var walFallbackWarned sync.Map

// reportFallback calls c.OnWALFallback with cause the first time path
// falls back in this process.
func reportFallback(path string, c Config, cause error) {
	if c.OnWALFallback == nil {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if _, seen := walFallbackWarned.LoadOrStore(abs, true); !seen {
		c.OnWALFallback(cause)
	}
}

// applyJournal is upstream's apply_wal_with_fallback for the database at
// uri (whose DSN parameters, such as mode=rwc, are in params), on a
// connection of its own opened through the database/sql driver named
// driverName ("sqlite3"), and returns the journal mode the file is left in:
//
//  1. A file already in WAL is left as it is (no pragma that could write
//     or unlink anything another connection holds).
//  2. Otherwise journal_mode=WAL is set, and a first read confirms that
//     SQLite can open the WAL index: on a filesystem that refuses WAL's
//     locks the pragma itself succeeds, rewriting the header, and only
//     the next read fails (after SQLite's 10 s of retries).
//  3. When SQLite refuses WAL (IsWALRefused, or a mode other than wal
//     returned), the file is put back in DELETE mode, through a
//     connection in exclusive locking mode, which keeps the WAL index in
//     its own memory and so needs no shared memory; cause says why. A file
//     that was in WAL before the probe is never downgraded: its error is
//     returned.
//
// Any other error (a transient EIO among them) is returned as it is.
//
// Connections probing one new file at once can deadlock on the set-pragma:
// each holds the SHARED lock of its read and wants the EXCLUSIVE one, and
// SQLite answers SQLITE_BUSY at once rather than call the busy handler
// (https://sqlite.org/c3ref/busy_handler.html). The probe is then run
// again on a new connection, after DefaultRetry's jitter, for as long as
// c's busy timeout allows; by then one of them has set WAL, and the next
// probe finds it.
func applyJournal(ctx context.Context, driverName, uri, params string, c Config) (mode string, cause, err error) {
	deadline := time.Now().Add(c.busyTimeout())
	for {
		mode, cause, err = probeJournal(ctx, driverName, uri, params, c)
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return mode, cause, err
		}
		if werr := sleep(ctx, DefaultRetry().jitter()); werr != nil {
			return "", nil, fmt.Errorf("%w (last attempt: %w)", werr, err)
		}
	}
}

// probeJournal is one attempt of applyJournal, on a connection of its own.
func probeJournal(ctx context.Context, driverName, uri, params string, c Config) (mode string, cause, err error) {
	db, err := sql.Open(driverName, uri+"?"+params+"&_busy_timeout="+c.busyMillis())
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close()
	var before string
	probeErr := conn.QueryRowContext(ctx, journalModeSQL).Scan(&before)
	if probeErr == nil && before == JournalWAL {
		return JournalWAL, nil, nil
	}
	var after string
	if err := conn.QueryRowContext(ctx, journalModeWALSQL).Scan(&after); err != nil {
		if !IsWALRefused(err) || probeErr != nil {
			return "", nil, err
		}
		return JournalDelete, err, nil // the header was not changed
	}
	if after != JournalWAL {
		if after != JournalDelete {
			if err := conn.QueryRowContext(ctx, journalModeDeleteSQL).Scan(&after); err != nil {
				return "", nil, err
			}
		}
		return JournalDelete, fmt.Errorf("%w (journal_mode stayed %q)", ErrWALRefused, before), nil
	}
	var tables int64
	err = conn.QueryRowContext(ctx, firstReadSQL).Scan(&tables)
	switch {
	case err == nil:
		return JournalWAL, nil, nil
	case !IsWALRefused(err) || probeErr != nil:
		return "", nil, err
	}
	conn.Close()
	db.Close()
	if rerr := revertToDelete(ctx, uri, c); rerr != nil {
		return "", nil, fmt.Errorf("%w; putting the file back in DELETE mode failed: %w", err, rerr)
	}
	return JournalDelete, err, nil
}

// revertToDelete puts a file the probe switched to WAL back in DELETE
// mode, through a connection in exclusive locking mode, which never uses
// the -shm file.
func revertToDelete(ctx context.Context, uri string, c Config) error {
	v := url.Values{}
	v.Set("mode", "rw")
	v.Set("_locking_mode", "EXCLUSIVE")
	v.Set("_busy_timeout", c.busyMillis())
	db, err := sql.Open("sqlite3", uri+"?"+v.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	var mode string
	if err := db.QueryRowContext(ctx, journalModeDeleteSQL).Scan(&mode); err != nil {
		return err
	}
	if mode != JournalDelete {
		return fmt.Errorf("journal_mode is %q", mode)
	}
	return db.Close()
}
