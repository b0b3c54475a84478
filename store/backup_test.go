package store

// Tests of Backup: the copy is sound, complete, private and never
// overwrites anything unforced, and forced replaces only a regular file,
// also from a read-only store and while another Store writes.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/publish"
)

// dirNames lists the names in dir, sorted (the store tests' name for
// dbtest.DirNames).
var dirNames = dbtest.DirNames

// mustBackup backs s up to path.
func mustBackup(t testing.TB, s *Store, path string) {
	t.Helper()
	if err := s.Backup(t.Context(), path, BackupOptions{}); err != nil {
		t.Fatalf("Backup(%s): %v", path, err)
	}
}

// assertBackupOf checks that the file at path passes PRAGMA
// integrity_check, is in rollback-journal mode, and exports exactly what
// want is.
func assertBackupOf(t testing.TB, path, want string) {
	t.Helper()
	raw := rawDB(t, path)
	if got := dbtest.Values[string](t, raw, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check of the backup = %q, want [ok]", got)
	}
	if got := dbtest.Value[string](t, raw, "PRAGMA journal_mode"); got != "delete" {
		t.Errorf("journal_mode of the backup = %q, want delete", got)
	}
	if diff := cmp.Diff(want, exportText(t, openAt(t, path, quick(nil)), ExportOptions{})); diff != "" {
		t.Errorf("export of the backup differs (-source +backup):\n%s", diff)
	}
}

// TestBackup checks a backup of the export fixture: sound, exports like
// the source, mode 0600, and alone in its directory (no temporary file
// left).
func TestBackup(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	dir := t.TempDir()
	path := filepath.Join(dir, "backup.db")
	mustBackup(t, s, path)
	if diff := cmp.Diff([]string{"backup.db"}, dirNames(t, dir)); diff != "" {
		t.Errorf("files beside the backup (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode = %v, want 0600", fi.Mode().Perm())
	}
	assertBackupOf(t, path, exportText(t, s, ExportOptions{}))
}

// TestBackupNoDirectory checks that a backup into a directory that does
// not exist fails with ErrNoDirectory, naming the directory, and creates
// nothing.
func TestBackupNoDirectory(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	top := t.TempDir()
	path := filepath.Join(top, "one", "two", "backup.db")
	err := s.Backup(t.Context(), path, BackupOptions{})
	if want := "store: backup: no such directory: " + filepath.Join(top, "one", "two"); !errors.Is(err, ErrNoDirectory) || err.Error() != want {
		t.Errorf("Backup into a missing directory: error = %v, want %q (ErrNoDirectory)", err, want)
	}
	if diff := cmp.Diff([]string{}, dirNames(t, top)); diff != "" {
		t.Errorf("files created (-want +got):\n%s", diff)
	}
}

// TestBackupExists checks that a backup to an existing path fails with
// ErrExists and leaves what is there untouched, for a file and for a
// dangling symbolic link.
func TestBackupExists(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})

	t.Run("File", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "backup.db")
		precious := []byte("an older backup, not to be lost")
		if err := os.WriteFile(path, precious, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.Backup(t.Context(), path, BackupOptions{}); !errors.Is(err, ErrExists) {
			t.Errorf("Backup onto an existing file: error = %v, want ErrExists", err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != string(precious) {
			t.Errorf("existing file now holds %q (%v), want it untouched", got, err)
		}
		if diff := cmp.Diff([]string{"backup.db"}, dirNames(t, dir)); diff != "" {
			t.Errorf("files in the directory (-want +got):\n%s", diff)
		}
	})

	t.Run("DanglingSymlink", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "backup.db")
		if err := os.Symlink(filepath.Join(dir, "target.db"), path); err != nil {
			t.Fatal(err)
		}
		if err := s.Backup(t.Context(), path, BackupOptions{}); !errors.Is(err, ErrExists) {
			t.Errorf("Backup onto a dangling symlink: error = %v, want ErrExists", err)
		}
		if diff := cmp.Diff([]string{"backup.db"}, dirNames(t, dir)); diff != "" {
			t.Errorf("files in the directory (-want +got; the link's target must not be created):\n%s", diff)
		}
	})
}

// TestBackupCancelled checks that a backup that fails half-way (its
// context is cancelled) leaves neither the backup nor a temporary file.
func TestBackupCancelled(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Backup(ctx, filepath.Join(dir, "backup.db"), BackupOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Backup with a cancelled context: error = %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]string{}, dirNames(t, dir)); diff != "" {
		t.Errorf("files left behind (-want +got):\n%s", diff)
	}
}

// TestBackupReadOnly backs up through a store opened with ReadOnly.
func TestBackupReadOnly(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	want := exportText(t, s, ExportOptions{})
	ro := openAt(t, path, &Options{ReadOnly: true})
	backup := filepath.Join(t.TempDir(), "backup.db")
	mustBackup(t, ro, backup)
	assertBackupOf(t, backup, want)
}

// TestBackupWhileWriting takes a backup while a second Store on the same
// file appends messages: the backup holds a prefix of the appends, whole
// (messages m-1 … m-k, no gap, and a message_count of k).
func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	writer := openAt(t, path, quick(nil))

	const started, most = 50, 3000
	begun, stop, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		for i := 1; i <= most; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if _, err := writer.AppendMessage(t.Context(), "s", NewMessage{Role: "user", Content: new(fmt.Sprintf("m-%d", i))}); err != nil {
				done <- err
				return
			}
			if i == started {
				close(begun)
			}
		}
		done <- nil
	}()
	<-begun
	backup := filepath.Join(t.TempDir(), "backup.db")
	err := s.Backup(t.Context(), backup, BackupOptions{})
	close(stop)
	if werr := <-done; werr != nil {
		t.Fatalf("writer: %v", werr)
	}
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}

	copied := openAt(t, backup, &Options{ReadOnly: true})
	msgs, err := copied.GetMessages(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	k := len(msgs)
	if k < started {
		t.Fatalf("backup holds %d messages, want at least the %d written before it began", k, started)
	}
	for i, m := range msgs {
		if want := fmt.Sprintf("m-%d", i+1); deref(m.Content) != want || m.ID != int64(i+1) {
			t.Fatalf("backup message %d = id %d %q, want id %d %q (a prefix with no gap)", i+1, m.ID, deref(m.Content), i+1, want)
		}
	}
	if got := mustSession(t, copied, "s").MessageCount; got != int64(k) {
		t.Errorf("backup message_count = %d, want %d (the rows it holds)", got, k)
	}
	total, err := s.MessageCount(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("backup holds %d of the %d messages appended", k, total)
}

// TestBackupForce checks BackupOptions.Force: a regular file is replaced
// by a whole backup (still private), and anything else, or the database
// itself, is refused and left as it was.
func TestBackupForce(t *testing.T) {
	t.Parallel()
	s, dbPath := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	want := exportText(t, s, ExportOptions{})
	force := BackupOptions{Force: true}

	t.Run("RegularFile", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "backup.db")
		if err := os.WriteFile(path, []byte("last week's backup"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.Backup(t.Context(), path, force); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("replaced backup: %v, %v; want mode 0600", fi, err)
		}
		if diff := cmp.Diff([]string{"backup.db"}, dirNames(t, dir)); diff != "" {
			t.Errorf("files in the directory (-want +got):\n%s", diff)
		}
		assertBackupOf(t, path, want)
	})

	t.Run("NotRegular", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		kept, kinds := dbtest.NotRegularFiles(t, dir)
		before := dbtest.FileHash(t, kept)
		for path, kind := range kinds {
			err := s.Backup(t.Context(), path, force)
			if want := "store: backup: " + path + " is " + kind + ", not a regular file"; !errors.Is(err, ErrNotRegular) || err.Error() != want {
				t.Errorf("forced Backup onto %s: %v, want %q (ErrNotRegular)", path, err, want)
			}
		}
		if dbtest.FileHash(t, kept) != before {
			t.Error("the link's target changed")
		}
		if diff := cmp.Diff([]string{"fifo", "kept", "link", "sub"}, dirNames(t, dir)); diff != "" {
			t.Errorf("files in the directory (-want +got):\n%s", diff)
		}
		if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("/dev/null is no longer a character device: %v, %v", fi, err)
		}
	})

	t.Run("DatabaseInUse", func(t *testing.T) {
		t.Parallel()
		// A backup with a -wal beside it (opened by the store, in WAL
		// mode, and still open or not closed cleanly), or a journal: that
		// file would be replayed over a new copy.
		dir := t.TempDir()
		open := filepath.Join(dir, "open.db")
		journaled := filepath.Join(dir, "journaled.db")
		for _, side := range []string{open + "-wal", journaled + "-journal"} {
			mustBackup(t, s, strings.TrimSuffix(strings.TrimSuffix(side, "-wal"), "-journal"))
			if err := os.WriteFile(side, []byte("frames of the old file"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for path, side := range map[string]string{open: open + "-wal", journaled: journaled + "-journal"} {
			before := dbtest.FileHash(t, path)
			err := s.Backup(t.Context(), path, force)
			if want := "store: backup: " + side + " already exists: the file at the backup path is a database in use or not closed cleanly, never replaced"; !errors.Is(err, ErrExists) || err.Error() != want {
				t.Errorf("forced Backup onto %s: %v, want %q", path, err, want)
			}
			if dbtest.FileHash(t, path) != before {
				t.Errorf("%s changed", path)
			}
		}
	})

	t.Run("TheDatabase", func(t *testing.T) {
		t.Parallel()
		other := filepath.Join(filepath.Dir(dbPath), "hardlink.db")
		if err := os.Link(dbPath, other); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{dbPath, dbPath + "-wal", dbPath + "-journal", other} {
			if err := s.Backup(t.Context(), path, force); !errors.Is(err, ErrExists) {
				t.Errorf("forced Backup onto the database's own %s: %v, want ErrExists", path, err)
			}
		}
		if got := exportText(t, s, ExportOptions{}); got != want {
			t.Error("the database changed")
		}
	})
}

// TestBackupStaleTemporaryFile checks that a temporary file a killed
// backup left (a file under publish.TempPrefix nobody holds locked) is
// removed by the next backup into that directory, and one being written
// (locked) is not.
func TestBackupStaleTemporaryFile(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	dir := t.TempDir()
	stale := filepath.Join(dir, publish.TempPrefix+"0123456789abcdef-old.db")
	if err := os.WriteFile(stale, []byte("half a backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, err := publish.Create(filepath.Join(dir, "other.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	mustBackup(t, s, filepath.Join(dir, "backup.db"))
	if diff := cmp.Diff([]string{filepath.Base(live.TempPath()), "backup.db"}, dirNames(t, dir)); diff != "" {
		t.Errorf("files in the directory (-want +got):\n%s", diff)
	}
}

// TestBackupProgress checks that Progress is called, last with the
// copy's size, against the pages in use.
func TestBackupProgress(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	pages, err := s.Pages(t.Context())
	if err != nil || pages.Size != 4096 || pages.Count < 2 {
		t.Fatalf("Pages = %+v, %v", pages, err)
	}
	var last, total int64
	calls := 0
	path := filepath.Join(t.TempDir(), "backup.db")
	err = s.Backup(t.Context(), path, BackupOptions{Progress: func(written, of int64) {
		calls++
		last, total = written, of
	}})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != fi.Size() || total != pages.UsedBytes() {
		t.Errorf("Progress: %d calls, last (%d, %d); want the copy's %d bytes against %d in use", calls, last, total, fi.Size(), pages.UsedBytes())
	}
}

// TestBackupNeverReplacesAFileThatAppears creates a file at the target
// while Backup runs (from its progress callback, which runs before the
// copy is put in place): without Force the backup fails with ErrExists
// and the newcomer keeps its bytes; with Force a symbolic link that
// appears is refused with ErrNotRegular and left as it is. No temporary
// file stays behind either way.
func TestBackupNeverReplacesAFileThatAppears(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	for _, tt := range []struct {
		name   string
		force  bool
		appear func(path string) error
		want   error
	}{
		{"File", false, func(path string) error { return os.WriteFile(path, []byte("newcomer"), 0o600) }, ErrExists},
		{"SymlinkForced", true, func(path string) error {
			kept := filepath.Join(filepath.Dir(path), "kept")
			if err := os.WriteFile(kept, []byte("newcomer"), 0o600); err != nil {
				return err
			}
			return os.Symlink(kept, path)
		}, ErrNotRegular},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "backup.db")
			var appeared error
			once := false
			err := s.Backup(t.Context(), path, BackupOptions{Force: tt.force, Progress: func(int64, int64) {
				if !once {
					once, appeared = true, tt.appear(path)
				}
			}})
			if appeared != nil || !once {
				t.Fatalf("the newcomer did not appear (called %v): %v", once, appeared)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Backup = %v, want %v", err, tt.want)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != "newcomer" {
				t.Errorf("the newcomer holds %q, %v; want it untouched", b, err)
			}
			want := []string{"backup.db"}
			if tt.force {
				want = []string{"backup.db", "kept"}
			}
			if diff := cmp.Diff(want, dirNames(t, dir)); diff != "" {
				t.Errorf("files in the directory (-want +got):\n%s", diff)
			}
		})
	}
}
