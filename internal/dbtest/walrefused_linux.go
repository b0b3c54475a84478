//go:build linux

package dbtest

import (
	"os"
	"syscall"
	"testing"
)

// fOFDSetLk is Linux's F_OFD_SETLK: a byte-range lock owned by the open
// file description, which conflicts with the classic POSIX locks SQLite
// takes even inside the same process.
const fOFDSetLk = 37

// The WAL-index lock bytes of a -shm file: SQLite's eight locks (write,
// checkpoint, recover, five read marks) at offset 120.
const walLockOffset, walLockBytes = 120, 8

// RefuseWAL makes SQLite's WAL unusable for the database at dbPath the way
// a filesystem with broken byte-range locks does (NFS without a working
// lock daemon): it creates the -shm file and holds write locks on all
// eight WAL-index lock bytes, so that every connection's attempt to read
// the WAL index fails, and after SQLite's retries (about 10 s) gives
// SQLITE_PROTOCOL ("locking protocol"), SQLite's own error, from its own
// code. The file stays in whatever journal mode it has; no connection may
// have the database open yet. The locks are released (the descriptor
// closed) when the test ends, after the cleanups registered later, such as
// closing a store: closing it drops only this description's own locks.
func RefuseWAL(t testing.TB, dbPath string) {
	t.Helper()
	f, err := os.OpenFile(dbPath+"-shm", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	lock := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: walLockOffset, Len: walLockBytes}
	if err := syscall.FcntlFlock(f.Fd(), fOFDSetLk, &lock); err != nil {
		t.Fatalf("lock the WAL index of %s: %v", dbPath, err)
	}
}
