package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// peekVersion reads schema_version through Peek.
func peekVersion(t *testing.T, path string) (int64, error) {
	t.Helper()
	var v int64
	err := Peek(context.Background(), path, Config{Retry: DefaultRetry()}, func(db *sql.DB) error {
		return db.QueryRow("SELECT version FROM schema_version").Scan(&v)
	})
	return v, err
}

// TestPeekLeavesNothing: a look at a WAL-mode file no one has open leaves
// it byte for byte the same with no -wal or -shm beside it (a read-only
// connection would leave both).
func TestPeekLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := dbtest.CopyFile(t, dbtest.Testdata("upstream", "state-v21.db"), filepath.Join(dir, "state.db"))
	before := dbtest.FileHash(t, path)
	if v, err := peekVersion(t, path); err != nil || v != 21 {
		t.Errorf("Peek: version %d, %v; want 21", v, err)
	}
	if dbtest.FileHash(t, path) != before {
		t.Error("the file changed")
	}
	if diff := cmp.Diff([]string{"state.db"}, dbtest.DirNames(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, err := peekVersion(t, filepath.Join(dir, "missing.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Peek of a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestPeekSeesALiveWAL: with a writer open (its -wal beside the file), Peek
// reads through the WAL: it sees what the writer committed.
func TestPeekSeesALiveWAL(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	w := openWriter(t, path, Config{})
	dbtest.Exec(t, w, "CREATE TABLE schema_version (version INTEGER NOT NULL)", "INSERT INTO schema_version VALUES (12)")
	if v, err := peekVersion(t, path); err != nil || v != 12 {
		t.Errorf("Peek: version %d, %v; want 12", v, err)
	}
}
