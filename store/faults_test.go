package store

// Faults (issue "Reliability…", item 3): a full disk, and files Open must
// refuse without writing a byte to them.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestDiskFull fills the database to its page limit (PRAGMA max_page_count
// stands in for a full disk: SQLite reports both as SQLITE_FULL): the write
// fails with ErrDiskFull, the database is exactly as before, and writing
// works again once there is room.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	mustAppend(t, s, "s", NewMessage{Role: "user", Content: new("before the disk filled up")})
	before := exportText(t, s, ExportOptions{})

	// The limit is the current size: the next write that needs a new page
	// fails. The pragma is per connection, so it goes to the writer.
	var pages int64
	if err := s.w.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	execSQL(t, s, "PRAGMA max_page_count = "+strconv.FormatInt(pages, 10))

	big := strings.Repeat("a long message that needs new pages ", 4000)
	_, err := s.AppendMessage(ctx, "s", NewMessage{Role: "user", Content: &big})
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("AppendMessage on a full disk = %v, want ErrDiskFull", err)
	}
	err = s.ReplaceMessages(ctx, "s", []NewMessage{{Role: "user", Content: &big}})
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("ReplaceMessages on a full disk = %v, want ErrDiskFull", err)
	}
	if diff := cmp.Diff(before, exportText(t, s, ExportOptions{})); diff != "" {
		t.Fatalf("database changed by failed writes (-before +after):\n%s", diff)
	}

	execSQL(t, s, "PRAGMA max_page_count = 1073741823")
	if _, err := s.AppendMessage(ctx, "s", NewMessage{Role: "user", Content: &big}); err != nil {
		t.Fatalf("AppendMessage after space came back: %v", err)
	}
	msgs, err := s.GetMessages(ctx, "s")
	if err != nil || len(msgs) != 2 || *msgs[1].Content != big {
		t.Fatalf("after recovery: %d messages, %v", len(msgs), err)
	}
	h, err := s.Check(ctx)
	if err != nil || !h.OK() {
		t.Fatalf("Check after recovery = %+v, %v", h, err)
	}
}

// goodFile returns the bytes of a small current database with one session.
func goodFile(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "good.db")
	s := openAt(t, path, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	mustAppend(t, s, "s", NewMessage{Role: "user", Content: new("hello")})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenRefusesDamagedFiles opens files that are not a usable state
// database: each gets a typed error, and neither the file nor anything
// beside it is written.
func TestOpenRefusesDamagedFiles(t *testing.T) {
	t.Parallel()
	good := goodFile(t)
	text := []byte("these are notes, not a database\n")
	for _, tt := range []struct {
		name    string
		content []byte
		want    error
	}{
		{"ZeroBytes", []byte{}, ErrNotDatabase},
		{"Text", text, ErrNotDatabase},
		{"TruncatedHeader", good[:50], ErrCorrupt},
		{"TruncatedHalf", good[:len(good)/2], ErrCorrupt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "state.db")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			for _, opts := range []*Options{nil, {ReadOnly: true}} {
				s, err := Open(t.Context(), path, opts)
				if err == nil {
					s.Close()
				}
				if !errors.Is(err, tt.want) {
					t.Errorf("Open(%+v) = %v, want %v", opts, err, tt.want)
				}
			}
			assertUnchanged(t, path, tt.content)
		})
	}
}

// assertUnchanged checks that the database at path still holds want and
// that no page was written beside it: SQLite may leave the empty -wal and
// the -shm index it opens for a WAL-mode header, never a frame.
func assertUnchanged(t *testing.T, path string, want []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(b, want) {
		t.Errorf("%s changed: %d bytes, was %d (%v)", path, len(b), len(want), err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() != 0 {
		t.Errorf("%s-wal holds %d bytes, want none", path, fi.Size())
	}
}

// assertFiles checks that dir holds exactly the files want, byte for byte.
func assertFiles(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = b
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files in %s (-want +got):\n%s", dir, diff)
	}
}

// TestOpenRefusesForeignWAL puts another database's -wal file beside a
// closed state database: replaying it would replace the state database's
// pages. Open refuses with ErrForeignWAL (an ErrCorrupt), and the database
// file is untouched.
func TestOpenRefusesForeignWAL(t *testing.T) {
	t.Parallel()
	good := goodFile(t)
	other := filepath.Join(t.TempDir(), "other.db")
	o := rawDB(t, other)
	o.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0", "CREATE TABLE notes (body TEXT)", "INSERT INTO notes VALUES ('x')"} {
		if _, err := o.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	wal, err := os.ReadFile(other + "-wal")
	if err != nil || len(wal) == 0 {
		t.Fatalf("other database's WAL: %d bytes, %v", len(wal), err)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+"-wal", wal, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []*Options{nil, {ReadOnly: true}} {
		s, err := Open(t.Context(), path, opts)
		if err == nil {
			s.Close()
		}
		if !errors.Is(err, ErrForeignWAL) || !errors.Is(err, ErrCorrupt) {
			t.Errorf("Open(%+v) with a foreign WAL = %v, want ErrForeignWAL", opts, err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(b, good) {
		t.Errorf("the database file changed (%v)", err)
	}
	w, err := os.ReadFile(path + "-wal")
	if err != nil || !bytes.Equal(w, wal) {
		t.Errorf("the -wal file changed (%v)", err)
	}
}

// makeReadOnly makes path unwritable for this process: by permissions, or,
// for root (whom permissions do not stop), by the immutable attribute. It
// skips the test where neither is possible.
func makeReadOnly(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(path, 0o700) })
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		if os.Getenv(dbtest.RequireRootEnv) != "" {
			t.Fatalf("running as root and chattr +i failed (%v: %s) while %s is set", err, out, dbtest.RequireRootEnv)
		}
		t.Skipf("running as root and chattr +i is not available here: %v %s; set %s=1 to make this a failure", err, out, dbtest.RequireRootEnv)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
}

// TestOpenReadOnlyFileOrDirectory opens a database whose file, or whose
// directory (when the -wal must be created), may not be written: Open
// fails with ErrReadOnly and changes nothing; Options.ReadOnly still reads
// it.
func TestOpenReadOnlyFileOrDirectory(t *testing.T) {
	t.Parallel()
	good := goodFile(t)
	for _, tt := range []struct {
		name string
		lock func(t *testing.T, dir, path string)
	}{
		{"File", func(t *testing.T, _, path string) { makeReadOnly(t, path, 0o400) }},
		{"Directory", func(t *testing.T, dir, _ string) { makeReadOnly(t, dir, 0o500) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "hermes")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "state.db")
			if err := os.WriteFile(path, good, 0o600); err != nil {
				t.Fatal(err)
			}
			tt.lock(t, dir, path)

			s, err := Open(t.Context(), path, nil)
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, ErrReadOnly) {
				t.Fatalf("Open = %v, want ErrReadOnly", err)
			}
			assertFiles(t, dir, map[string][]byte{"state.db": good})
		})
	}
}
