package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestOpenOnFullDisk opens an existing database on a filesystem with no
// space left (a real tmpfs, filled): SQLite cannot create the 32 KiB
// -shm file WAL mode needs (SQLITE_IOERR_SHMSIZE, errno ENOSPC, "disk I/O
// error"). Both a writable and a read-only Open fail with an error
// matching ErrDiskFull, leave no -wal or -shm behind and the database
// byte for byte as it was; once there is space, Open works and the data
// is there.
func TestOpenOnFullDisk(t *testing.T) {
	t.Parallel()
	dir := dbtest.Tmpfs(t, "2m")
	path := filepath.Join(dir, "state.db")
	s, err := Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, NewSession{ID: "kept", Source: "cli"})
	mustAppend(t, s, "kept", NewMessage{Role: "user", Content: new("still here")})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fill := filepath.Join(dir, "fill")
	dbtest.Fill(t, fill)
	before := dbtest.FileHash(t, path)

	for _, readOnly := range []bool{false, true} {
		s, err := Open(t.Context(), path, &Options{ReadOnly: readOnly})
		if err == nil {
			s.Close()
			t.Fatalf("Open(ReadOnly %v) on a full disk succeeded", readOnly)
		}
		if !errors.Is(err, ErrDiskFull) {
			t.Errorf("Open(ReadOnly %v) on a full disk = %v; want ErrDiskFull", readOnly, err)
		}
		if diff := cmp.Diff([]string{"fill", "state.db"}, dirNames(t, dir)); diff != "" {
			t.Errorf("after Open(ReadOnly %v) failed, the directory holds (-want +got):\n%s", readOnly, diff)
		}
		if dbtest.FileHash(t, path) != before {
			t.Errorf("Open(ReadOnly %v) changed the database", readOnly)
		}
	}

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path, nil)
	if msgs, err := s.GetMessages(t.Context(), "kept"); err != nil || len(msgs) != 1 || *msgs[0].Content != "still here" {
		t.Errorf("GetMessages(kept) after space came back = %d messages, %v", len(msgs), err)
	}
}
