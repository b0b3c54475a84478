//go:build linux

package store

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestOpenWhereWALIsRefused opens a store on a file whose filesystem
// refuses WAL's locks (dbtest.RefuseWAL; SQLite fails with
// SQLITE_PROTOCOL after its 10 s of retries): the store works in the
// DELETE journal, end to end (create, append, search, read back), and
// says so once, as a warning naming the file.
//
// upstream: test_hermes_state_wal_fallback.py
// TestSessionDbUsesWalFallback::test_sessiondb_works_when_wal_unavailable,
// TestApplyWalWithFallback::test_falls_back_to_delete_on_locking_protocol
// (the one WARNING naming the file and journal_mode=DELETE)
func TestOpenWhereWALIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	// A current file in DELETE mode, as a first open on such a
	// filesystem leaves it (and any file copied there).
	first := openAt(t, path, nil)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	plain := rawDB(t, path)
	if _, err := plain.Exec("PRAGMA journal_mode=DELETE"); err != nil {
		t.Fatal(err)
	}
	if err := plain.Close(); err != nil {
		t.Fatal(err)
	}
	dbtest.RefuseWAL(t, path)
	logs := &recorder{}
	s := openAt(t, path, &Options{Logger: slog.New(logs)})
	var mode string
	if err := s.w.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "delete" {
		t.Fatalf("journal_mode = %q, %v; want delete", mode, err)
	}
	srchCreate(t, s, "s1", "cli", "test")
	srchSay(t, s, "s1", "user", "hello after the fallback")
	if sess := mustSession(t, s, "s1"); sess.Source != "cli" {
		t.Errorf("source = %q, want cli", sess.Source)
	}
	if msgs, err := s.GetMessages(t.Context(), "s1"); err != nil || len(msgs) != 1 || *msgs[0].Content != "hello after the fallback" {
		t.Errorf("GetMessages = %+v, %v; want the one message", msgs, err)
	}
	if res := srchFind(t, s, "fallback", SearchOptions{}); len(res) != 1 {
		t.Errorf("search: %d hits, want 1", len(res))
	}
	const warning = "WAL journal_mode unsupported on this filesystem; falling back to journal_mode=DELETE " +
		"(slower rollback-journal mode; reduces concurrency but works on NFS/SMB/FUSE; see https://www.sqlite.org/wal.html)"
	if got := logs.count(warning); got != 1 {
		t.Errorf("%d fallback warnings, want 1: %q", got, logs.msgs)
	}
}
