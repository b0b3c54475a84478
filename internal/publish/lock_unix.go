//go:build unix

package publish

import (
	"io/fs"
	"os"
	"syscall"
)

// tryLock takes f's exclusive flock without waiting and reports whether it
// got it. The lock belongs to the open file: it lasts until f is closed or
// the process dies, whatever kills it. flock locks are not the POSIX locks
// SQLite takes, so the two never interfere.
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// links is the file's number of hard links.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}

// openNoFollow opens path for reading without following a symbolic link
// and without waiting (a named pipe put there meanwhile does not block).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
