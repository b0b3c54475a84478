package publish

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Stale returns the paths of the stale temporary files in dir: files named
// with TempPrefix that no living process holds locked, left by a process
// that was killed while it wrote them. A temporary file being written is
// never stale. It returns the error of reading dir.
func Stale(dir string) ([]string, error) {
	return scan(dir, false)
}

// RemoveStale removes the stale temporary files in dir (see Stale) and
// returns the paths it removed. It returns the error of reading dir;
// a file it cannot remove is left out.
func RemoveStale(dir string) ([]string, error) {
	return scan(dir, true)
}

// companions are the suffixes of the files SQLite keeps beside a
// database it writes (VACUUM INTO journals its output file): a temporary
// file's companions are its writer's, removed with it, and stale exactly
// when it is.
var companions = []string{"-journal", "-wal", "-shm"}

// scan finds, and with remove removes, the stale temporary files in dir.
func scan(dir string, remove bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), TempPrefix) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if staleFile(path, remove) {
			out = append(out, path)
		}
	}
	return out, nil
}

// staleFile reports whether path is a stale temporary file, and with
// remove removes it while holding its lock (so that its writer, had it
// been alive, could not have taken it back meanwhile). Only a regular file
// with one link is opened: a database, its -wal or its -shm has its own
// name, so under a temporary name it would have two.
//
// A companion (path is a temporary file's name and a companions suffix) is
// stale when its temporary file is gone or stale: Discard removes the
// companions before the file itself. It is never opened.
func staleFile(path string, remove bool) bool {
	li, err := os.Lstat(path)
	if err != nil || !li.Mode().IsRegular() || links(li) != 1 {
		return false
	}
	for _, suffix := range companions {
		if main, ok := strings.CutSuffix(path, suffix); ok {
			if _, err := os.Lstat(main); err == nil && !staleFile(main, false) {
				return false
			}
			return !remove || removed(path)
		}
	}
	f, err := openNoFollow(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !os.SameFile(li, fi) || !tryLock(f) {
		return false
	}
	return !remove || removed(path)
}

// removed removes path and reports whether it is gone.
func removed(path string) bool {
	err := os.Remove(path)
	return err == nil || errors.Is(err, fs.ErrNotExist)
}
