package store

// Tests of Backup: the copy is sound, complete, private and never
// overwrites anything, also from a read-only store and while another
// Store writes.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// dirNames lists the names in dir, sorted.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// mustBackup backs s up to path.
func mustBackup(t testing.TB, s *Store, path string) {
	t.Helper()
	if err := s.Backup(t.Context(), path); err != nil {
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

// TestBackupCreatesDirectories checks that missing parent directories are
// created private (0700).
func TestBackupCreatesDirectories(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	top := t.TempDir()
	path := filepath.Join(top, "one", "two", "backup.db")
	mustBackup(t, s, path)
	for _, dir := range []string{filepath.Join(top, "one"), filepath.Join(top, "one", "two")} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode = %v, want 0700", dir, fi.Mode().Perm())
		}
	}
	if diff := cmp.Diff([]string{"backup.db"}, dirNames(t, filepath.Dir(path))); diff != "" {
		t.Errorf("files beside the backup (-want +got):\n%s", diff)
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
		if err := s.Backup(t.Context(), path); !errors.Is(err, ErrExists) {
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
		if err := s.Backup(t.Context(), path); !errors.Is(err, ErrExists) {
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
	if err := s.Backup(ctx, filepath.Join(dir, "backup.db")); !errors.Is(err, context.Canceled) {
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
	err := s.Backup(t.Context(), backup)
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
