package reliability

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/store"
)

// TestWALShrinksAfterLongReader appends thousands of messages through the
// store while a reader in another process holds one read transaction open,
// as the original's long-lived gateway readers did (HA #35201). The WAL
// cannot be checkpointed past the reader's snapshot, so it grows far past
// sqlite.WALSizeLimit (64 MiB). Once the reader ends, the store's setup
// brings it back without any manual step: the next PASSIVE checkpoint (the
// store's every 50 writes, or SQLite's automatic one) copies the whole WAL
// into the database, the next commit starts the WAL over, and
// journal_size_limit cuts the file to exactly the limit. It stays at or
// under it as writes go on; Close leaves it at or under the limit while
// another process has the file open, and removes it when the store is the
// last user of the file.
//
// The -wal file's size is read with os.Stat only: opening it would drop
// SQLite's locks.
func TestWALShrinksAfterLongReader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSession(ctx, store.NewSession{ID: "w", Source: "cli"}); err != nil {
		t.Fatal(err)
	}
	written := 0
	appendN := func(n int) (peak int64) {
		t.Helper()
		for range n {
			if _, err := s.AppendMessage(ctx, "w", messageFor("w", written).newMessage()); err != nil {
				t.Fatal(err)
			}
			written++
			peak = max(peak, dbtest.WALSize(t, path))
		}
		return peak
	}
	const limit = sqlite.WALSizeLimit

	steady := appendN(200)
	if steady >= limit {
		t.Errorf("with no reader the WAL reached %d bytes in 200 writes, want far less than the %d-byte limit", steady, limit)
	}

	reader := startChild(t, "hold-read", "RELIABILITY_DB="+path)
	reader.expect("ready")
	reader.send("begin")
	reader.expect(fmt.Sprintf("count %d", written))
	n := pick(2000, 20000)
	grown := appendN(n)
	// The reader still sees its snapshot: the WAL really was pinned.
	reader.send("count")
	reader.expect(fmt.Sprintf("count %d", written-n))
	if grown <= limit {
		t.Fatalf("the WAL grew to only %d bytes behind the reader; the test needs more than the %d-byte limit to show the cut", grown, limit)
	}
	reader.send("end")
	reader.expect("ended")
	released := dbtest.WALSize(t, path)

	// Writes go on until the store's periodic checkpoint has run, then one
	// more. SQLite's own checkpoint (after any commit that leaves more than
	// 1,000 pages in the WAL) may copy the WAL first; either way the commit
	// after the copy starts the WAL over and cuts the file.
	checkpoints, cutAfter := s.Stats().Checkpoints, 0
	for i := 1; s.Stats().Checkpoints == checkpoints; i++ {
		if i > store.DefaultCheckpointEvery {
			t.Fatalf("no periodic checkpoint in %d writes", i-1)
		}
		appendN(1)
		if cutAfter == 0 && dbtest.WALSize(t, path) <= limit {
			cutAfter = i
		}
	}
	appendN(1)
	cut := dbtest.WALSize(t, path)
	if cut != limit {
		t.Errorf("after the reader ended, a checkpoint and a write, the WAL is %d bytes, want exactly the %d-byte limit", cut, limit)
	}
	after := appendN(500)
	if after > limit {
		t.Errorf("500 more writes took the WAL to %d bytes, over the %d-byte limit", after, limit)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	closedShared := dbtest.WALSize(t, path)
	if closedShared > limit {
		t.Errorf("after Close, with the reader's process still connected, the WAL is %d bytes, over the %d-byte limit", closedShared, limit)
	}
	reader.finish(false)
	// Alone on the file, Close is the last connection: SQLite checkpoints
	// and removes the WAL.
	s, err = store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if size := dbtest.WALSize(t, path); size != -1 {
		t.Errorf("after the last Close the WAL is %d bytes, want no WAL file", size)
	}
	q := openPlain(t, path)
	checkCurrent(t, q)
	if sessions, _ := readSessions(t, q); sessions["w"].MessageCount != int64(written) {
		t.Errorf("session w holds %d messages, want the %d appended", sessions["w"].MessageCount, written)
	}
	t.Logf("-wal bytes: %d peak in 200 writes with no reader; %d after %d writes behind the reader; %d just after it ended; "+
		"cut to %d by write %d after it ended (%d after the periodic checkpoint and one more write); %d peak in 500 more writes; "+
		"%d after Close with another process connected; none after the last Close (limit %d)",
		steady, grown, n, released, limit, cutAfter, cut, after, closedShared, limit)
}

// runReadHolder is the "hold-read" helper: a plain read-only connection to
// the file, driven by lines on stdin. "begin" opens a read transaction and
// writes "count N" (the messages it sees), "count" writes that again from
// inside the transaction, "end" commits and writes "ended". The helper
// closes the connection and exits when stdin closes.
func runReadHolder() error {
	ctx := context.Background()
	// mode=ro: the reader can never write or take the write lock.
	db, err := sql.Open("sqlite3", (&url.URL{Scheme: "file", Path: os.Getenv("RELIABILITY_DB"), RawQuery: "mode=ro"}).String())
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // BEGIN and COMMIT must reach the same connection
	if err != nil {
		return err
	}
	defer conn.Close()
	fmt.Println("ready")
	count := func() error {
		var n int64
		if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM messages").Scan(&n); err != nil {
			return err
		}
		fmt.Printf("count %d\n", n)
		return nil
	}
	for in := bufio.NewScanner(os.Stdin); in.Scan(); {
		var err error
		switch in.Text() {
		case "begin":
			// A deferred BEGIN: the first SELECT takes the snapshot that
			// pins the WAL.
			if _, err = conn.ExecContext(ctx, "BEGIN"); err == nil {
				err = count()
			}
		case "count":
			err = count()
		case "end":
			if _, err = conn.ExecContext(ctx, "COMMIT"); err == nil {
				fmt.Println("ended")
			}
		default:
			err = fmt.Errorf("unknown command %q", in.Text())
		}
		if err != nil {
			return err
		}
	}
	return nil
}
