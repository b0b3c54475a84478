package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// modes returns the permission bits of each path, "missing" for a path
// that does not exist.
func modes(t *testing.T, paths ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err == nil:
			out[filepath.Base(p)] = fi.Mode().Perm().String()
		case errors.Is(err, fs.ErrNotExist):
			out[filepath.Base(p)] = "missing"
		default:
			t.Fatal(err)
		}
	}
	return out
}

// TestFilesArePrivate: the database holds conversations, so Open creates it
// readable by its owner only (0600; the default location's new directories
// are 0700: TestDefaultLocationIsCreatedPrivate), and SQLite gives the -wal and -shm it creates the
// database file's own permissions: never wider than the database. An
// existing file or directory keeps its permissions.
func TestFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX permission bits")
	}
	t.Parallel()

	// write makes sure the -wal and -shm exist: a write goes through them.
	write := func(t *testing.T, s *Store) {
		t.Helper()
		if err := s.SetMeta(t.Context(), "k", "v"); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("NewFileInExistingDirectory", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "shared")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil { // whatever the umask
			t.Fatal(err)
		}
		path := filepath.Join(dir, "state.db")
		write(t, openAt(t, path, nil))
		want := map[string]string{"shared": "-rwxr-xr-x", "state.db": "-rw-------", "state.db-wal": "-rw-------", "state.db-shm": "-rw-------"}
		if diff := cmp.Diff(want, modes(t, dir, path, path+"-wal", path+"-shm")); diff != "" {
			t.Errorf("permissions (-want +got):\n%s", diff)
		}
	})

	// A file the user made group-readable stays so, and its -wal and -shm
	// follow it exactly.
	t.Run("ExistingFileKeepsItsMode", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "state.db")
		s := openAt(t, path, nil)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		// Closing the last connection removed the -wal and -shm.
		if diff := cmp.Diff(map[string]string{"state.db-wal": "missing", "state.db-shm": "missing"}, modes(t, path+"-wal", path+"-shm")); diff != "" {
			t.Fatalf("after Close (-want +got):\n%s", diff)
		}
		if err := os.Chmod(path, 0o640); err != nil {
			t.Fatal(err)
		}
		write(t, openAt(t, path, nil))
		want := map[string]string{"state.db": "-rw-r-----", "state.db-wal": "-rw-r-----", "state.db-shm": "-rw-r-----"}
		if diff := cmp.Diff(want, modes(t, path, path+"-wal", path+"-shm")); diff != "" {
			t.Errorf("permissions (-want +got):\n%s", diff)
		}
	})
}
