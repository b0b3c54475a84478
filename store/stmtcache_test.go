package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// The statement cache is the driver's (_stmt_cache_size, set by
// internal/sqlite on the writer and on every reader): each connection
// keeps its prepared statements by text and hands one back, reset, to the
// next call with the same text. These tests watch it through SQLite's
// authorizer, which SQLite calls while it compiles a statement and never
// while it runs one: a statement taken from the cache compiles nothing.

// countPrepares takes one connection of pool and counts the SELECT
// statements SQLite compiles on it from now on.
func countPrepares(t *testing.T, pool *sql.DB) (*sql.Conn, *atomic.Int64) {
	t.Helper()
	c, err := pool.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var n atomic.Int64
	err = c.Raw(func(dc any) error {
		dc.(*sqlite3.SQLiteConn).RegisterAuthorizer(func(op int, _, _, _ string) int {
			if op == sqlite3.SQLITE_SELECT {
				n.Add(1)
			}
			return sqlite3.SQLITE_OK
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, &n
}

// cacheFixture is a store with session "s" of three messages.
func cacheFixture(t *testing.T, opts *Options) (*Store, string) {
	t.Helper()
	s, path := openStore(t, opts)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	for _, text := range []string{"one", "two", "three"} {
		mustAppend(t, s, "s", NewMessage{Role: "user", Content: new(text)})
	}
	return s, path
}

// runRound runs the generated SessionGet and the replay's driver path
// (eachConversationRow) on c and returns how many SELECTs SQLite compiled
// (the authorizer counts each SELECT of a statement, its CTE and
// subqueries included).
func runRound(t *testing.T, s *Store, c *sql.Conn, n *atomic.Int64) int64 {
	t.Helper()
	ctx := t.Context()
	before := n.Load()
	r, err := s.q.SessionGet(ctx, backend.SQLiteTx(c), "s")
	if err != nil || r.ID != "s" {
		t.Fatalf("SessionGet = %q, %v", r.ID, err)
	}
	rows := 0
	err = s.eachConversationRow(ctx, backend.SQLiteTx(c), db.MessageConversationParams{SessionID: "s"}, func(*db.MessageConversationRow) error {
		rows++
		return nil
	})
	if err != nil || rows != 3 {
		t.Fatalf("replay read %d rows, %v; want 3", rows, err)
	}
	return n.Load() - before
}

// rounds runs k rounds on c and returns each one's count.
func rounds(t *testing.T, s *Store, c *sql.Conn, n *atomic.Int64, k int) []int64 {
	t.Helper()
	out := make([]int64, k)
	for i := range out {
		out[i] = runRound(t, s, c, n)
	}
	return out
}

// compiledOnce reports whether counts show one compilation (the first
// round, which must compile something) and none after.
func compiledOnce(counts []int64) bool {
	if counts[0] == 0 {
		return false
	}
	for _, c := range counts[1:] {
		if c != 0 {
			return false
		}
	}
	return true
}

func TestStmtCacheReusesStatementsOnAConnection(t *testing.T) {
	s, path := cacheFixture(t, nil)
	// The writer's connection caches too: what the write helper's
	// statements get without any wiring.
	wc, wn := countPrepares(t, s.w)
	if got := rounds(t, s, wc, wn, 3); !compiledOnce(got) {
		t.Errorf("SELECTs compiled per round on the writer = %v, want the first round only", got)
	}
	wc.Close()
	c, n := countPrepares(t, s.r)
	cached := rounds(t, s, c, n, 3)
	if !compiledOnce(cached) {
		t.Errorf("SELECTs compiled per round on the store's pool = %v, want the first round only", cached)
	}
	// The same rounds on a pool without the cache compile every time: the
	// counts above are the cache's doing.
	bare, err := sqlite.OpenReader(t.Context(), path, sqlite.Config{NoStmtCache: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	bc, bn := countPrepares(t, bare)
	if got := rounds(t, s, bc, bn, 3); got[0] != cached[0] || got[1] != cached[0] || got[2] != cached[0] {
		t.Errorf("SELECTs compiled per round without the cache = %v, want %d each", got, cached[0])
	}
}

// TestStmtCacheSchemaChangeByAnotherConnection changes the schema from
// another connection while a connection of the pool holds the statements
// compiled against the old one: SQLite notices the schema cookie moved
// (SQLITE_SCHEMA), compiles the cached statement again by itself (the
// driver prepares with sqlite3_prepare_v2) and the call answers from the
// new schema with no error; the recompiled statement is cached again.
func TestStmtCacheSchemaChangeByAnotherConnection(t *testing.T) {
	for _, change := range []string{
		"CREATE INDEX test_msg_role ON messages(role)",
		"ALTER TABLE messages ADD COLUMN test_extra TEXT",
		"VACUUM",
	} {
		t.Run(change, func(t *testing.T) {
			s, path := cacheFixture(t, nil)
			c, n := countPrepares(t, s.r)
			before := rounds(t, s, c, n, 2)
			if !compiledOnce(before) {
				t.Fatalf("before the change: compiled per round %v", before)
			}
			other := rawDB(t, path)
			if _, err := other.ExecContext(t.Context(), change); err != nil {
				t.Fatal(err)
			}
			after := rounds(t, s, c, n, 3)
			if after[0] != before[0] || !compiledOnce(after) {
				t.Errorf("after the change by another connection: compiled per round %v, want [%d 0 0]", after, before[0])
			}
		})
	}
}

// TestStmtCacheDroppedConnection drops a pooled connection that holds
// cached statements (as database/sql drops one after a driver.ErrBadConn
// or at its lifetime's end): the reads that follow get another connection
// and the same answers.
func TestStmtCacheDroppedConnection(t *testing.T) {
	s, _ := cacheFixture(t, nil)
	ctx := t.Context()
	want, err := s.Conversation(ctx, "s", false)
	if err != nil || len(want) != 3 {
		t.Fatalf("Conversation = %d messages, %v", len(want), err)
	}
	for range 3 {
		c, n := countPrepares(t, s.r)
		rounds(t, s, c, n, 2)
		// The pool closes a connection whose Raw call reports it bad.
		if err := c.Raw(func(any) error { return driver.ErrBadConn }); !errors.Is(err, driver.ErrBadConn) {
			t.Fatalf("Raw = %v", err)
		}
		got, err := s.Conversation(ctx, "s", false)
		if err != nil || len(got) != 3 || *got[2].Content != "three" {
			t.Fatalf("after dropping a connection: Conversation = %v, %v", got, err)
		}
		if _, err := s.ExportSession(ctx, "s"); err != nil {
			t.Fatal(err)
		}
	}
	// With no idle connections kept, every call runs on a new connection.
	s.r.SetMaxIdleConns(0)
	for range 3 {
		got, err := s.Conversation(ctx, "s", false)
		if err != nil || len(got) != 3 {
			t.Fatalf("without idle connections: Conversation = %d messages, %v", len(got), err)
		}
	}
}

// TestStmtCacheHoldsNoSnapshot fills the cache of every connection of the
// pool, then writes and checkpoints: a cached statement is reset, so it
// holds no read transaction, every later read sees the write, and a
// TRUNCATE checkpoint (which waits for every reader) finishes.
func TestStmtCacheHoldsNoSnapshot(t *testing.T) {
	s, _ := cacheFixture(t, &Options{BusyTimeout: 200 * time.Millisecond})
	ctx := t.Context()
	// Hold every connection at once so each runs the statements.
	conns := make([]*sql.Conn, s.opts.ReadConnections)
	for i := range conns {
		c, n := countPrepares(t, s.r)
		rounds(t, s, c, n, 2)
		conns[i] = c
	}
	for _, c := range conns {
		c.Close()
	}
	mustAppend(t, s, "s", NewMessage{Role: "user", Content: new("four")})
	res, err := s.Checkpoint(ctx, CheckpointTruncate)
	if err != nil || res.Busy {
		t.Fatalf("TRUNCATE checkpoint = %+v, %v; want not busy", res, err)
	}
	for range s.opts.ReadConnections + 1 {
		got, err := s.Conversation(ctx, "s", false)
		if err != nil || len(got) != 4 {
			t.Fatalf("Conversation after the write = %d messages, %v; want 4", len(got), err)
		}
		e, err := s.ExportSession(ctx, "s")
		if err != nil || len(e.Messages) != 4 {
			t.Fatalf("ExportSession after the write = %v, %v", e, err)
		}
	}
}

// TestStmtCacheClose closes a store whose connections hold cached
// statements: Close succeeds, cuts the -wal to zero bytes, and later calls
// return ErrClosed.
func TestStmtCacheClose(t *testing.T) {
	s, path := cacheFixture(t, nil)
	ctx := t.Context()
	for range 5 {
		if _, err := s.ExportSession(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ListSessionsRich(ctx, ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() != 0 {
		t.Errorf("-wal is %d bytes after Close, want 0", fi.Size())
	}
	if _, err := s.Conversation(ctx, "s", false); !errors.Is(err, ErrClosed) {
		t.Errorf("Conversation after Close = %v, want ErrClosed", err)
	}
}

// TestStmtCacheConcurrentReads runs the cached reads from many goroutines
// while a writer appends (run it with -race): each answer is a consistent
// snapshot, never shorter than one read before it.
func TestStmtCacheConcurrentReads(t *testing.T) {
	s, _ := cacheFixture(t, nil)
	ctx := t.Context()
	const writes, readers, rounds = 40, 6, 30
	var wg sync.WaitGroup
	errs := make(chan error, readers+1)
	wg.Go(func() {
		for i := range writes {
			if _, err := s.AppendMessage(ctx, "s", NewMessage{Role: "assistant", Content: new(fmt.Sprint("reply ", i))}); err != nil {
				errs <- err
				return
			}
		}
	})
	for range readers {
		wg.Go(func() {
			last := 0
			for range rounds {
				conv, err := s.Conversation(ctx, "s", false)
				if err != nil {
					errs <- err
					return
				}
				e, err := s.ExportSession(ctx, "s")
				if err != nil {
					errs <- err
					return
				}
				// The export is one snapshot: its session row counts the
				// messages it holds.
				if int64(len(e.Messages)) != e.MessageCount {
					errs <- fmt.Errorf("export holds %d messages, its row counts %d", len(e.Messages), e.MessageCount)
					return
				}
				if len(conv) < last || len(e.Messages) < len(conv) {
					errs <- fmt.Errorf("reads went back: %d, then replay %d, export %d", last, len(conv), len(e.Messages))
					return
				}
				last = len(e.Messages)
				if _, err := s.ListSessionsRich(ctx, ListOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := s.Conversation(ctx, "s", false)
	if err != nil || len(got) != 3+writes {
		t.Fatalf("final replay = %d messages, %v; want %d", len(got), err, 3+writes)
	}
}

// TestReadConnCanceledLeavesNoTransaction ends the context of exports
// before and while they run: each fails with the context's error, and no
// pooled connection is left inside a read transaction (a TRUNCATE
// checkpoint, which waits for every reader, finishes).
func TestReadConnCanceledLeavesNoTransaction(t *testing.T) {
	s, _ := cacheFixture(t, &Options{BusyTimeout: 200 * time.Millisecond})
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	for range 2 * s.opts.ReadConnections {
		if _, err := s.ExportSession(canceled, "s"); !errors.Is(err, context.Canceled) {
			t.Fatalf("ExportSession(canceled) = %v, want context.Canceled", err)
		}
	}
	for i := range 20 {
		ctx, cancel := context.WithTimeout(t.Context(), time.Duration(i)*50*time.Microsecond)
		s.ExportSession(ctx, "s") // either answer; what matters is what it leaves
		cancel()
	}
	mustAppend(t, s, "s", NewMessage{Role: "user", Content: new("four")})
	res, err := s.Checkpoint(t.Context(), CheckpointTruncate)
	if err != nil || res.Busy {
		t.Fatalf("TRUNCATE checkpoint = %+v, %v; want not busy", res, err)
	}
	e, err := s.ExportSession(t.Context(), "s")
	if err != nil || len(e.Messages) != 4 {
		t.Fatalf("ExportSession = %v, %v; want 4 messages", e, err)
	}
}

// TestReadConnDropsConnectionAfterFailedRollback ends readConn's
// transaction from inside fn, so that readConn's own ROLLBACK fails: the
// connection, whose state readConn no longer knows, is closed instead of
// going back to the pool; a read that ends normally keeps its connection.
func TestReadConnDropsConnectionAfterFailedRollback(t *testing.T) {
	s, _ := cacheFixture(t, nil)
	ctx := t.Context()
	if _, err := s.ExportSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	open := s.r.Stats().OpenConnections
	if _, err := s.ExportSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if got := s.r.Stats().OpenConnections; got != open {
		t.Fatalf("after a normal read: %d open connections, want %d", got, open)
	}
	_, err := readConn(s, ctx, func(ctx context.Context, q backend.Tx) (struct{}, error) {
		_, err := q.ExecContext(ctx, "ROLLBACK")
		return struct{}{}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.r.Stats().OpenConnections; got != open-1 {
		t.Errorf("after a failed ROLLBACK: %d open connections, want %d", got, open-1)
	}
	if e, err := s.ExportSession(ctx, "s"); err != nil || len(e.Messages) != 3 {
		t.Fatalf("ExportSession after = %v, %v", e, err)
	}
}
