package store

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// SQLite's locks are POSIX advisory locks, which a process loses, all of
// them, on a file the moment it closes ANY descriptor on that file
// (sqlite.org/howtocorrupt.html §2.2). A store that opened and closed the
// database, its -wal or its -shm through the os package would silently drop
// the locks of every connection of its process, and another process could
// then write, checkpoint or delete the WAL under a transaction in progress:
// the worst corruption the original's users met. TestLocksAreNeverDropped
// runs every store call next to a connection holding the write lock and
// checks, from a third process, after each call, that the lock is still
// held.
//
// Two probes tell the two lock files apart. In WAL mode the write lock is a
// lock on the -shm file: a third process's BEGIN IMMEDIATE fails with
// SQLITE_BUSY while it is held. Every connection also holds a shared lock
// on the database file itself: a third process in locking_mode=EXCLUSIVE
// cannot read while any other connection exists. The control subtests show
// that each probe does see the lock go when a descriptor on its file is
// closed.

// lockTestOptions make a store give up quickly on the held lock: one busy
// timeout of 10 ms per statement and two attempts per write.
func lockTestOptions() *Options {
	return &Options{
		BusyTimeout:   10 * time.Millisecond,
		WriteAttempts: 2,
		RetryMinDelay: time.Millisecond,
		RetryMaxDelay: 2 * time.Millisecond,
	}
}

// errCheckpointBusy stands for a checkpoint that returned Busy: true.
var errCheckpointBusy = errors.New("checkpoint reported busy")

// lockOutcome is how a call ended, as the lock test compares it: "ok",
// "ErrBusy", "busy" (a checkpoint that could not finish) or the error.
func lockOutcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrBusy):
		return "ErrBusy"
	case errors.Is(err, errCheckpointBusy):
		return "busy"
	}
	return "error: " + strings.ReplaceAll(err.Error(), "\n", " ")
}

// lockCall is one store call run while another connection holds the write
// lock. want is its outcome then: reads see the last commit, writes and
// the checkpoints that must wait for the writer give up.
type lockCall struct {
	name string
	want string
	run  func(ctx context.Context, s *Store) error
}

// returns makes a lock call of call that fails unless call returns want.
func returns[T any](want T, call func(context.Context, *Store) (T, error)) func(context.Context, *Store) error {
	return func(ctx context.Context, s *Store) error {
		got, err := call(ctx, s)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Errorf("unexpected result (-want +got): %s", diff)
		}
		return nil
	}
}

// count makes a lock call of call that fails unless call returns want
// items.
func count[T any](want int, call func(context.Context, *Store) ([]T, error)) func(context.Context, *Store) error {
	return returns(want, func(ctx context.Context, s *Store) (int, error) {
		items, err := call(ctx, s)
		return len(items), err
	})
}

// sessionID is the id of the session get returns.
func sessionID(get func(context.Context, *Store) (*Session, error)) func(context.Context, *Store) (string, error) {
	return func(ctx context.Context, s *Store) (string, error) {
		sess, err := get(ctx, s)
		if err != nil {
			return "", err
		}
		return sess.ID, nil
	}
}

// checkpointCall runs a checkpoint in mode, reporting Busy as
// errCheckpointBusy.
func checkpointCall(mode CheckpointMode, want string) lockCall {
	return lockCall{"Checkpoint" + mode.String(), want, func(ctx context.Context, s *Store) error {
		res, err := s.Checkpoint(ctx, mode)
		if err == nil && res.Busy {
			return errCheckpointBusy
		}
		return err
	}}
}

// lockCalls is every read, maintenance and open/close call of the store,
// with the results they must give on the data seedLockTest writes. A new
// call is one more line.
func lockCalls() []lockCall {
	type ctx = context.Context
	return []lockCall{
		{"GetSession", "ok", returns("root", sessionID(func(c ctx, s *Store) (*Session, error) { return s.GetSession(c, "root") }))},
		{"ResolveSessionID", "ok", returns("root", func(c ctx, s *Store) (string, error) { return s.ResolveSessionID(c, "ro") })},
		{"SessionTitle", "ok", returns("locked", func(c ctx, s *Store) (string, error) { return s.SessionTitle(c, "root") })},
		{"SessionByTitle", "ok", returns("root", sessionID(func(c ctx, s *Store) (*Session, error) { return s.SessionByTitle(c, "locked") }))},
		{"ResolveSessionByTitle", "ok", returns("tip", func(c ctx, s *Store) (string, error) { return s.ResolveSessionByTitle(c, "locked") })},
		{"NextTitleInLineage", "ok", returns("locked #3", func(c ctx, s *Store) (string, error) { return s.NextTitleInLineage(c, "locked") })},
		{"CompressionTip", "ok", returns("tip", func(c ctx, s *Store) (string, error) { return s.CompressionTip(c, "root") })},
		{"ResolveResumeSessionID", "ok", returns("tip", func(c ctx, s *Store) (string, error) { return s.ResolveResumeSessionID(c, "tip") })},
		{"Lineage", "ok", returns([]string{"root", "tip"}, func(c ctx, s *Store) ([]string, error) { return s.Lineage(c, "tip") })},
		{"Ancestors", "ok", count(2, func(c ctx, s *Store) ([]LineageNode, error) { return s.Ancestors(c, "tip") })},
		{"Descendants", "ok", count(2, func(c ctx, s *Store) ([]LineageNode, error) { return s.Descendants(c, "root") })},
		{"ListSessionsRich", "ok", count(1, func(c ctx, s *Store) ([]RichSession, error) { return s.ListSessionsRich(c, ListOptions{}) })},
		{"SearchSessions", "ok", count(2, func(c ctx, s *Store) ([]ActiveSession, error) { return s.SearchSessions(c, "", 0, 0) })},
		{"SessionCount", "ok", returns(int64(2), func(c ctx, s *Store) (int64, error) { return s.SessionCount(c, "") })},
		{"MessageCount", "ok", returns(int64(3), func(c ctx, s *Store) (int64, error) { return s.MessageCount(c, "") })},
		{"GetMessages", "ok", count(2, func(c ctx, s *Store) ([]Message, error) { return s.GetMessages(c, "root") })},
		{"EachMessage", "ok", returns(2, func(c ctx, s *Store) (int, error) {
			n := 0
			return n, s.EachMessage(c, "root", func(Message) error { n++; return nil })
		})},
		{"Conversation", "ok", count(3, func(c ctx, s *Store) ([]ConversationMessage, error) { return s.Conversation(c, "tip", true) })},
		{"SearchMessagesUnicode61", "ok", count(1, func(c ctx, s *Store) ([]SearchResult, error) { return s.SearchMessages(c, "docker", SearchOptions{}) })},
		{"SearchMessagesTrigram", "ok", count(1, func(c ctx, s *Store) ([]SearchResult, error) {
			return s.SearchMessages(c, "记忆断裂", SearchOptions{})
		})},
		{"SearchMessagesLike", "ok", count(1, func(c ctx, s *Store) ([]SearchResult, error) { return s.SearchMessages(c, "通信", SearchOptions{}) })},
		{"ExportSession", "ok", count(2, func(c ctx, s *Store) ([]Message, error) {
			e, err := s.ExportSession(c, "root")
			if err != nil {
				return nil, err
			}
			return e.Messages, nil
		})},
		{"ExportAll", "ok", count(2, func(c ctx, s *Store) ([]SessionExport, error) { return s.ExportAll(c, "") })},
		{"ExportJSONL", "ok", returns(2, func(c ctx, s *Store) (int, error) { return s.ExportJSONL(c, io.Discard, ExportOptions{}) })},
		// The holder's row is not committed: not found.
		{"GetMeta", "ok", returns(false, func(c ctx, s *Store) (bool, error) {
			_, ok, err := s.GetMeta(c, "lock-holder")
			return ok, err
		})},
		{"SchemaVersion", "ok", returns(int64(21), func(c ctx, s *Store) (int64, error) { return s.SchemaVersion(c) })},
		{"OpenAndCloseSecondStore", "ok", func(c ctx, s *Store) error {
			other, err := Open(c, s.Path(), lockTestOptions())
			if err != nil {
				return err
			}
			_, err = other.SessionCount(c, "")
			return errors.Join(err, other.Close())
		}},
		// PASSIVE copies what it can without waiting; the other modes wait
		// for the writer, then report busy.
		checkpointCall(CheckpointPassive, "ok"),
		checkpointCall(CheckpointFull, "busy"),
		checkpointCall(CheckpointRestart, "busy"),
		checkpointCall(CheckpointTruncate, "busy"),
		{"Vacuum", "ErrBusy", func(c ctx, s *Store) error { _, err := s.Vacuum(c); return err }},
		{"AutoMaintain", "ErrBusy", func(c ctx, s *Store) error { return s.AutoMaintain(c, AutoMaintainOptions{}).Err }},
		{"PruneSessions", "ErrBusy", func(c ctx, s *Store) error {
			_, err := s.PruneSessions(c, PruneOptions{})
			return err
		}},
		{"AppendMessage", "ErrBusy", func(c ctx, s *Store) error {
			_, err := s.AppendMessage(c, "tip", NewMessage{Role: "user", Content: new("blocked")})
			return err
		}},
		{"SetMeta", "ErrBusy", func(c ctx, s *Store) error { return s.SetMeta(c, "k", "v") }},
		// The doctor-style calls: the health check and the backup read one
		// snapshot beside the writer; the index rebuild and an import need
		// the write lock.
		{"ExportCount", "ok", returns(2, func(c ctx, s *Store) (int, error) { return s.ExportCount(c, ExportOptions{}) })},
		{"Check", "ok", returns(true, func(c ctx, s *Store) (bool, error) {
			h, err := s.Check(c)
			if err != nil {
				return false, err
			}
			return h.OK(), nil
		})},
		{"Backup", "ok", func(c ctx, s *Store) error {
			return s.Backup(c, filepath.Join(filepath.Dir(s.Path()), "copy-"+time.Now().Format("150405.000000000")+".db"), BackupOptions{})
		}},
		{"TokenStatsByModel", "ok", count(1, func(c ctx, s *Store) ([]TokenStats, error) { return s.TokenStatsByModel(c) })},
		{"TopSessionsByTokens", "ok", count(2, func(c ctx, s *Store) ([]TopSession, error) { return s.TopSessionsByTokens(c, 5) })},
		{"PruneSessionsDryRun", "ok", returns(1, func(c ctx, s *Store) (int, error) { return s.PruneSessions(c, PruneOptions{DryRun: true}) })},
		{"RebuildSearchIndex", "ErrBusy", func(c ctx, s *Store) error { return s.RebuildSearchIndex(c) }},
		{"ImportJSONL", "ErrBusy", func(c ctx, s *Store) error {
			_, err := s.ImportJSONL(c, strings.NewReader(`{"id": "imported", "source": "cli", "started_at": 1}`), ImportOptions{})
			return err
		}},
	}
}

// seedLockTest writes the data the lock calls read: a compression chain
// root → tip (root titled "locked", tip "locked #2"), two messages in root
// and one in tip, covering the three search routes.
func seedLockTest(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "state.db")
	s := openAt(t, path, &Options{Now: stepClock(time.Unix(1_700_000_000, 0), time.Second)})
	mustCreate(t, s, NewSession{ID: "root", Source: "cli", Model: "m"})
	mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("docker deploy 记忆断裂")})
	mustAppend(t, s, "root", NewMessage{Role: "assistant", Content: new("done 通信")})
	mustEnd(t, s, "root", "compression")
	mustCreate(t, s, NewSession{ID: "tip", Source: "cli", ParentSessionID: "root"})
	mustAppend(t, s, "tip", NewMessage{Role: "user", Content: new("continue")})
	if err := s.SetSessionTitle(ctx, "root", "locked"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSessionTitle(ctx, "tip", "locked #2"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Probe answers.
const (
	bothLocksHeld  = "write=busy exclusive=busy"
	writeLockFreed = "write=acquired exclusive=busy"
)

// TestLocksAreNeverDropped holds the write lock in one process (a plain
// database/sql connection that wrote a row and has not committed), runs
// every store call, and after each one checks from a third process that
// both locks are still held. Then the holder commits and the third process
// gets the write lock; the held row and the seeded data are all there and
// the file passes integrity_check.
func TestLocksAreNeverDropped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows locks are not POSIX advisory locks")
	}
	t.Parallel()

	// The store runs in the process holding the lock: a descriptor it
	// opened and closed would drop the holder's locks, as in the original's
	// users' corruption reports.
	t.Run("StoreInLockHoldingProcess", func(t *testing.T) {
		t.Parallel()
		path := seedLockTest(t)
		holder, probe := startLockHelpers(t, path)
		for _, c := range lockCalls() {
			got := holder.ask(t, "call "+c.name)
			if want := c.name + ": " + c.want; got != want {
				t.Errorf("under the lock, %s", cmp.Diff(want, got))
			}
			if got := probe.ask(t, "probe"); got != bothLocksHeld {
				t.Fatalf("after %s the locks are gone: probe says %q, want %q", c.name, got, bothLocksHeld)
			}
		}
		commitAndVerify(t, path, holder, probe)
	})

	// The store runs in this process, the lock in another: nothing a store
	// call does may take the lock away from its holder either. (Here the
	// exclusive probe also meets this process's own shared lock.)
	t.Run("StoreInAnotherProcess", func(t *testing.T) {
		t.Parallel()
		path := seedLockTest(t)
		holder, probe := startLockHelpers(t, path)
		s := openAt(t, path, lockTestOptions())
		for _, c := range lockCalls() {
			if got := lockOutcome(c.run(t.Context(), s)); got != c.want {
				t.Errorf("under the lock, %s = %q, want %q", c.name, got, c.want)
			}
			if got := probe.ask(t, "probe"); got != bothLocksHeld {
				t.Fatalf("after %s the locks are gone: probe says %q, want %q", c.name, got, bothLocksHeld)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		commitAndVerify(t, path, holder, probe)
	})

	// The controls do what the store must never do, so that the probes are
	// seen to fail: a descriptor on the database file closed in the
	// holder's process drops its shared lock, one on the -shm its write
	// lock. (The -wal carries no lock.)
	for _, c := range []struct{ name, suffix, want string }{
		{"ControlDescriptorOnDatabaseFile", "", "write=busy exclusive=acquired"},
		{"ControlDescriptorOnShmFile", "-shm", writeLockFreed},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := seedLockTest(t)
			holder, probe := startLockHelpers(t, path)
			if got := holder.ask(t, "close-fd "+c.suffix); got != "closed" {
				t.Fatalf("holder says %q, want closed", got)
			}
			if got := probe.ask(t, "probe"); got != c.want {
				t.Errorf("after closing a descriptor on %q the probe says %q, want %q", filepath.Base(path)+c.suffix, got, c.want)
			}
		})
	}
}

// startLockHelpers starts the lock holder on path, waits until it holds
// the write lock, and starts the probe, which must find both locks held.
func startLockHelpers(t *testing.T, path string) (holder, probe *helperProcess) {
	t.Helper()
	holder = startHelper(t, "lock-holder", "HERMESSTATE_DB="+path)
	if got := holder.next(t); got != "held" {
		t.Fatalf("holder says %q, want held", got)
	}
	probe = startHelper(t, "lock-probe", "HERMESSTATE_DB="+path)
	if got := probe.ask(t, "probe"); got != bothLocksHeld {
		t.Fatalf("before any call the probe says %q, want %q", got, bothLocksHeld)
	}
	return holder, probe
}

// commitAndVerify has the holder commit: the probe then gets the write lock
// (the holder, still connected, keeps its shared lock). Once both helpers
// have exited, the holder's row and the seeded rows are all in the file
// and it is intact.
func commitAndVerify(t *testing.T, path string, holder, probe *helperProcess) {
	t.Helper()
	if got := holder.ask(t, "commit"); got != "committed" {
		t.Fatalf("holder says %q, want committed", got)
	}
	if got := probe.ask(t, "probe"); got != writeLockFreed {
		t.Errorf("after the commit the probe says %q, want %q", got, writeLockFreed)
	}
	holder.finish(t)
	probe.finish(t)
	raw := rawDB(t, path)
	got := []string{
		dbtest.Value[string](t, raw, "PRAGMA integrity_check"),
		dbtest.Value[string](t, raw, "SELECT value FROM state_meta WHERE key = 'lock-holder'"),
		fmt.Sprint(dbtest.Value[int64](t, raw, "SELECT count(*) FROM sessions")),
		fmt.Sprint(dbtest.Value[int64](t, raw, "SELECT count(*) FROM messages")),
		fmt.Sprint(dbtest.Value[int64](t, raw, "SELECT count(*) FROM messages_fts")),
	}
	if diff := cmp.Diff([]string{"ok", "held", "2", "3", "3"}, got); diff != "" {
		t.Errorf("integrity, holder's row, sessions, messages, FTS rows (-want +got):\n%s", diff)
	}
}

// runLockHolder is the lock-holder helper process. It opens a plain
// connection to the database at path, writes a state_meta row inside
// BEGIN IMMEDIATE and says "held". Then it answers one line per command:
//
//	call NAME        runs lockCalls' NAME on its own Store (opened at the
//	                 first call, while the lock is held) and prints
//	                 "NAME: outcome"
//	close-fd SUFFIX  opens and closes path+SUFFIX with the os package (the
//	                 controls), prints "closed"
//	commit           commits, prints "committed"
//
// At the end of its input it closes everything and exits.
func runLockHolder(ctx context.Context, path string) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "lock-holder:", err)
		return 1
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		return fail(err)
	}
	defer raw.Close()
	conn, err := raw.Conn(ctx)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	// Hand-written: the lock is taken the way another Hermes process takes
	// it, and a row written so the transaction really holds the WAL write
	// lock with uncommitted frames.
	for _, stmt := range []string{"BEGIN IMMEDIATE", "INSERT INTO state_meta (key, value) VALUES ('lock-holder', 'held')"} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fail(err)
		}
	}
	fmt.Println("held")

	calls := map[string]lockCall{}
	for _, c := range lockCalls() {
		calls[c.name] = c
	}
	var s *Store
	defer func() {
		if s != nil {
			s.Close()
		}
	}()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		command, arg, _ := strings.Cut(in.Text(), " ")
		switch command {
		case "call":
			c, ok := calls[arg]
			if !ok {
				return fail(fmt.Errorf("no call %q", arg))
			}
			if s == nil {
				if s, err = Open(ctx, path, lockTestOptions()); err != nil {
					return fail(err)
				}
			}
			fmt.Printf("%s: %s\n", arg, lockOutcome(c.run(ctx, s)))
		case "close-fd":
			f, err := os.Open(path + arg)
			if err != nil {
				return fail(err)
			}
			f.Close()
			fmt.Println("closed")
		case "commit":
			if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
				return fail(err)
			}
			fmt.Println("committed")
		default:
			return fail(fmt.Errorf("unknown command %q", in.Text()))
		}
	}
	return 0
}

// runLockProbe is the lock-probe helper process: for each input line
// "probe" it prints "write=W exclusive=E", each "busy" or "acquired":
// whether a BEGIN IMMEDIATE, and a read in locking_mode=EXCLUSIVE, fail
// with SQLITE_BUSY at once (busy timeout 0). Each probe uses new
// connections and closes them, so the probe itself holds no lock between
// probes.
func runLockProbe(ctx context.Context, path string) int {
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "probe" {
			fmt.Fprintf(os.Stderr, "lock-probe: unknown command %q\n", in.Text())
			return 1
		}
		write, err := probeLock(ctx, uri+"?_busy_timeout=0&_txlock=immediate", func(ctx context.Context, d *sql.DB) error {
			tx, err := d.BeginTx(ctx, nil)
			if err == nil {
				err = tx.Rollback()
			}
			return err
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "lock-probe:", err)
			return 1
		}
		// locking_mode=EXCLUSIVE makes the first read take an exclusive
		// lock on the database file, which any other connection's shared
		// lock refuses. Should it succeed, this connection is the only one
		// left, and closing it checkpoints and removes the WAL: only the
		// control subtests, which break the file on purpose, get there.
		exclusive, err := probeLock(ctx, uri+"?_busy_timeout=0&_locking_mode=EXCLUSIVE", func(ctx context.Context, d *sql.DB) error {
			var n int
			return d.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "lock-probe:", err)
			return 1
		}
		fmt.Printf("write=%s exclusive=%s\n", write, exclusive)
	}
	return 0
}

// probeLock runs try on a new connection to dsn and reports "acquired"
// when it succeeds and "busy" when it fails with SQLITE_BUSY (read from
// the driver's error code); any other failure is returned.
func probeLock(ctx context.Context, dsn string, try func(context.Context, *sql.DB) error) (string, error) {
	d, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return "", err
	}
	defer d.Close()
	err = try(ctx, d)
	var se sqlite3.Error
	switch {
	case err == nil:
		return "acquired", nil
	case errors.As(err, &se) && se.Code == sqlite3.ErrBusy:
		return "busy", nil
	}
	return "", err
}
