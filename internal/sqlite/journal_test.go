package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// The drivers of the probe tests: SQLite's authorizer denies one form of
// the journal_mode pragma, as a host that forbids WAL outright does
// (upstream's "not authorized" marker, SQLITE_AUTH).
func init() {
	deny := func(setForm bool) *sqlite3.SQLiteDriver {
		return &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
			c.RegisterAuthorizer(func(op int, arg1, arg2, _ string) int {
				if op == sqlite3.SQLITE_PRAGMA && strings.EqualFold(arg1, "journal_mode") && (arg2 != "") == setForm {
					return sqlite3.SQLITE_DENY
				}
				return sqlite3.SQLITE_OK
			})
			return nil
		}}
	}
	sql.Register("sqlite3_deny_set_journal", deny(true))
	sql.Register("sqlite3_deny_read_journal", deny(false))
}

// journalFile makes a database at a new path in mode ("wal" or "delete")
// with one table and one row, closed.
func journalFile(t *testing.T, mode string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA journal_mode=" + mode, "CREATE TABLE t (x)", "INSERT INTO t VALUES (1)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// headerMode is the journal mode of the file at path as a new read-only
// connection reports it (from the header: "wal" or "delete").
func headerMode(t *testing.T, path string) string {
	t.Helper()
	uri, err := fileURI(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", uri+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatalf("journal_mode of %s: %v", path, err)
	}
	return mode
}

// TestApplyJournal is upstream's apply_wal_with_fallback against real
// files and real SQLite refusals.
//
// upstream: TestApplyWalProbe (test_skips_set_pragma_when_already_wal,
// test_sets_wal_on_fresh_connection, test_returns_wal_not_delete_from_probe,
// test_probe_failure_falls_through_to_set_pragma,
// test_fallback_to_delete_still_works), test_hermes_state_wal_fallback.py
// TestApplyWalWithFallback (test_succeeds_on_local_fs,
// test_falls_back_on_not_authorized, test_does_not_downgrade_when_disk_says_wal,
// test_reraises_unrelated_operational_error)
func TestApplyJournal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	run := func(t *testing.T, driver, path, params string) (string, error, error) {
		t.Helper()
		uri, err := fileURI(path)
		if err != nil {
			t.Fatal(err)
		}
		return applyJournal(ctx, driver, uri, params, Config{})
	}

	t.Run("FreshFileGoesWAL", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "new.db")
		mode, cause, err := run(t, "sqlite3", path, "mode=rwc")
		if mode != JournalWAL || cause != nil || err != nil {
			t.Fatalf("applyJournal = %q, %v, %v; want wal", mode, cause, err)
		}
		if got := headerMode(t, path); got != "wal" {
			t.Errorf("journal_mode afterwards = %q, want wal", got)
		}
	})

	t.Run("DeleteFileGoesWAL", func(t *testing.T) {
		t.Parallel()
		path := journalFile(t, "delete")
		if mode, cause, err := run(t, "sqlite3", path, "mode=rw"); mode != JournalWAL || cause != nil || err != nil {
			t.Fatalf("applyJournal = %q, %v, %v; want wal", mode, cause, err)
		}
		if got := headerMode(t, path); got != "wal" {
			t.Errorf("journal_mode afterwards = %q, want wal", got)
		}
	})

	// A file already in WAL is never sent the set-pragma: with it denied,
	// the probe still answers wal.
	t.Run("AlreadyWALSkipsTheSetPragma", func(t *testing.T) {
		t.Parallel()
		path := journalFile(t, "wal")
		if mode, cause, err := run(t, "sqlite3_deny_set_journal", path, "mode=rw"); mode != JournalWAL || cause != nil || err != nil {
			t.Fatalf("applyJournal = %q, %v, %v; want wal without the set-pragma", mode, cause, err)
		}
	})

	// SQLITE_AUTH on the set-pragma ("not authorized"): DELETE, the file
	// untouched and usable.
	t.Run("NotAuthorizedFallsBackToDelete", func(t *testing.T) {
		t.Parallel()
		path := journalFile(t, "delete")
		mode, cause, err := run(t, "sqlite3_deny_set_journal", path, "mode=rw")
		if mode != JournalDelete || err != nil || !IsWALRefused(cause) || cause.Error() != "not authorized" {
			t.Fatalf("applyJournal = %q, %v, %v; want delete, cause not authorized", mode, cause, err)
		}
		if code, _, _ := Code(cause); code != sqlite3.ErrAuth {
			t.Errorf("cause code %d, want SQLITE_AUTH", code)
		}
		if got := headerMode(t, path); got != "delete" {
			t.Errorf("journal_mode afterwards = %q, want delete", got)
		}
	})

	// The probe failing is no reason to stop: the set-pragma runs.
	t.Run("ProbeFailureFallsThroughToSetPragma", func(t *testing.T) {
		t.Parallel()
		path := journalFile(t, "delete")
		if mode, cause, err := run(t, "sqlite3_deny_read_journal", path, "mode=rw"); mode != JournalWAL || cause != nil || err != nil {
			t.Fatalf("applyJournal = %q, %v, %v; want wal", mode, cause, err)
		}
	})

	// A VFS without shared memory: SQLite answers the set-pragma with the
	// mode it kept. DELETE, no -wal or -shm.
	t.Run("NoSharedMemoryFallsBackToDelete", func(t *testing.T) {
		t.Parallel()
		path := journalFile(t, "delete")
		mode, cause, err := run(t, "sqlite3", path, "mode=rw&vfs=unix-none")
		if mode != JournalDelete || err != nil || !errors.Is(cause, ErrWALRefused) {
			t.Fatalf("applyJournal = %q, %v, %v; want delete, ErrWALRefused", mode, cause, err)
		}
		if want := ErrWALRefused.Error() + ` (journal_mode stayed "delete")`; cause.Error() != want {
			t.Errorf("cause = %q, want %q", cause, want)
		}
		if got := headerMode(t, path); got != "delete" {
			t.Errorf("journal_mode afterwards = %q, want delete", got)
		}
		for _, side := range []string{"-wal", "-shm"} {
			if _, err := os.Stat(path + side); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: %v, want none", side, err)
			}
		}
	})

	// A file in WAL that this VFS cannot read is never downgraded: the
	// error is returned, and the file stays WAL.
	t.Run("NeverDowngradesAWALFile", func(t *testing.T) {
		t.Parallel()
		path := journalFile(t, "wal")
		mode, cause, err := run(t, "sqlite3", path, "mode=rw&vfs=unix-none")
		if mode != "" || cause != nil || !errors.Is(Classify(err), ErrCantOpen) {
			t.Fatalf("applyJournal = %q, %v, %v; want ErrCantOpen", mode, cause, err)
		}
		if got := headerMode(t, path); got != "wal" {
			t.Errorf("journal_mode afterwards = %q, want wal", got)
		}
	})

	// Any other error is returned as it is, the file untouched.
	t.Run("ReraisesUnrelatedError", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "garbage.db")
		junk := []byte(strings.Repeat("not a database ", 300))
		if err := os.WriteFile(path, junk, 0o600); err != nil {
			t.Fatal(err)
		}
		mode, cause, err := run(t, "sqlite3", path, "mode=rw")
		if mode != "" || cause != nil || !errors.Is(Classify(err), ErrNotDatabase) {
			t.Fatalf("applyJournal = %q, %v, %v; want ErrNotDatabase", mode, cause, err)
		}
		if got, _ := os.ReadFile(path); !slices.Equal(got, junk) {
			t.Error("the file changed")
		}
	})
}

// TestIsWALRefused is the classification: the codes of a filesystem that
// refuses WAL, and never a transient I/O error or a full disk. The real
// SQLITE_AUTH and SQLITE_PROTOCOL are in TestApplyJournal and
// TestWALRefusedByLocks; the rest are the codes as the driver reports
// them.
//
// upstream: test_hermes_state_wal_fallback.py
// TestApplyWalWithFallback::test_reraises_on_disk_io_error,
// TestApplyWalProbe::test_no_downgrade_from_wal_to_delete_on_eio
func TestIsWALRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"Protocol", sqlite3.Error{Code: sqlite3.ErrProtocol, ExtendedCode: sqlite3.ErrNoExtended(sqlite3.ErrProtocol)}, true},
		{"Auth", sqlite3.Error{Code: sqlite3.ErrAuth, ExtendedCode: sqlite3.ErrNoExtended(sqlite3.ErrAuth)}, true},
		{"ShmOpen", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrSHMOpen}, true},
		{"ShmLock", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrSHMLock}, true},
		{"ShmMap", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrSHMMap}, true},
		{"Wrapped", errors.Join(errors.New("open"), sqlite3.Error{Code: sqlite3.ErrProtocol}), true},
		{"PlainEIO", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrNoExtended(sqlite3.ErrIoErr)}, false},
		{"ReadEIO", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrRead}, false},
		{"ShmSizeIsAFullDisk", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrSHMSize}, false},
		{"Busy", sqlite3.Error{Code: sqlite3.ErrBusy}, false},
		{"CantOpen", sqlite3.Error{Code: sqlite3.ErrCantOpen}, false},
		{"Error", sqlite3.Error{Code: sqlite3.ErrError}, false},
		{"NotSQLite", errors.New("locking protocol"), false}, // the text is never read
		{"Nil", nil, false},
	} {
		if got := IsWALRefused(c.err); got != c.want {
			t.Errorf("%s: IsWALRefused(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// TestWALFallbackWarnsOnce: OnWALFallback is called once per file and
// process, and independently for each file.
//
// upstream: test_hermes_state_wal_fallback.py
// TestApplyWalWithFallback::test_warning_deduplicated_per_db_label,
// test_warning_fires_independently_per_db_label
func TestWALFallbackWarnsOnce(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	c := Config{OnWALFallback: func(cause error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, cause.Error())
	}}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "state.db"), filepath.Join(dir, "kanban.db")
	for i := range 3 {
		reportFallback(a, c, errors.New("a"+string(rune('0'+i))))
	}
	reportFallback(b, c, errors.New("b"))
	reportFallback(filepath.Join(dir, ".", "state.db"), c, errors.New("a again, by another spelling"))
	reportFallback(b, Config{}, errors.New("no callback"))
	if want := []string{"a0", "b"}; !slices.Equal(got, want) {
		t.Errorf("OnWALFallback calls %q, want %q", got, want)
	}
}

// TestDurabilityFor: the pragmas each platform's writer gets. On macOS
// synchronous is FULL whatever was asked and checkpoints sync with
// F_FULLFSYNC; elsewhere the level asked and nothing more (upstream
// guards both with sys.platform == "darwin").
//
// upstream: TestApplyWalProbe::test_macos_checkpoint_fullsync_barrier_applied,
// test_macos_barrier_applied_when_already_wal,
// test_checkpoint_fullsync_barrier_skipped_off_darwin,
// test_macos_synchronous_full_enforced_fresh,
// test_macos_synchronous_full_enforced_already_wal
func TestDurabilityFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		goos    string
		asked   Synchronous
		sync    Synchronous
		pragmas []string
	}{
		{"darwin", SynchronousFull, SynchronousFull, []string{"PRAGMA checkpoint_fullfsync = 1"}},
		{"darwin", SynchronousNormal, SynchronousFull, []string{"PRAGMA checkpoint_fullfsync = 1"}},
		{"linux", SynchronousFull, SynchronousFull, nil},
		{"linux", SynchronousNormal, SynchronousNormal, nil},
		{"windows", SynchronousNormal, SynchronousNormal, nil},
		{"freebsd", SynchronousFull, SynchronousFull, nil},
	} {
		sync, pragmas := durabilityFor(c.goos, c.asked)
		if sync != c.sync || !slices.Equal(pragmas, c.pragmas) {
			t.Errorf("durabilityFor(%s, %s) = %s, %q; want %s, %q", c.goos, c.asked, sync, pragmas, c.sync, c.pragmas)
		}
	}
	// The writer of this platform gets what durabilityFor says: read back
	// on a real connection (macOS: synchronous 2 and checkpoint_fullfsync
	// 1 even when NORMAL was asked).
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := OpenWriter(context.Background(), path, Config{Synchronous: SynchronousNormal})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantSync, pragmas := hostDurability(SynchronousNormal)
	var syncLevel, fullfsync int
	if err := db.QueryRow("PRAGMA synchronous").Scan(&syncLevel); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA checkpoint_fullfsync").Scan(&fullfsync); err != nil {
		t.Fatal(err)
	}
	if want := map[Synchronous]int{SynchronousFull: 2, SynchronousNormal: 1}[wantSync]; syncLevel != want {
		t.Errorf("PRAGMA synchronous = %d, want %d", syncLevel, want)
	}
	if want := len(pragmas); fullfsync != want {
		t.Errorf("PRAGMA checkpoint_fullfsync = %d, want %d", fullfsync, want)
	}
}
