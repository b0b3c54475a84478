package sqlite

import (
	"errors"
	"io/fs"
	"os"
)

// An open that fails after SQLite created the database's -wal and -shm
// files (on a full disk: the -shm cannot grow to its first 32 KiB) leaves
// them behind, a 0-byte -wal and a 3-byte -shm. sideFiles notes which of
// them existed before an open, so that a failed open removes the ones it
// created, by path (never through a descriptor: see the package doc).

// shmMinSize is the size of a -shm file any working connection has
// mapped: one 32 KiB region of the WAL index. A smaller one is the
// leftover of a connection that failed to set it up.
const shmMinSize = 32 << 10

// sideFiles records whether a database's -wal and -shm files existed.
type sideFiles struct {
	path     string
	wal, shm bool
}

// sideFilesOf notes which of path's -wal and -shm exist now.
func sideFilesOf(path string) sideFiles {
	return sideFiles{path: path, wal: exists(path + "-wal"), shm: exists(path + "-shm")}
}

// removeCreated removes, after a failed open, the -shm and -wal files that
// did not exist before it and that no connection can be using: a -shm
// smaller than one mapped region, then a 0-byte -wal once no -shm is left.
// Another process that opened the file meanwhile has grown the -shm, so
// its files stay. Errors are ignored: the open's own error is the one to
// report.
func (b sideFiles) removeCreated() {
	if fi, err := os.Stat(b.path + "-shm"); err == nil && !b.shm && fi.Size() < shmMinSize {
		_ = os.Remove(b.path + "-shm") // best effort, see above
	}
	if fi, err := os.Stat(b.path + "-wal"); err == nil && !b.wal && fi.Size() == 0 && !exists(b.path+"-shm") {
		_ = os.Remove(b.path + "-wal") // best effort, see above
	}
}

// exists reports whether path exists (an error other than "does not
// exist" counts as existing: nothing is removed on a guess).
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
