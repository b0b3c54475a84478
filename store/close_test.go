package store

import (
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestCloseCheckpointsAndTruncatesTheWAL keeps another connection on the
// file open, so that closing the store's connections is not the last close
// (which SQLite checkpoints by itself), and checks that Close copied every
// committed write into the database file and cut the -wal to zero bytes.
func TestCloseCheckpointsAndTruncatesTheWAL(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, &Options{CheckpointEvery: -1})
	other := rawDB(t, path)
	if got := dbtest.Value[int64](t, other, "SELECT COUNT(*) FROM sessions"); got != 0 {
		t.Fatalf("sessions = %d, want 0", got)
	}
	mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
	for range 20 {
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("hello")})
	}
	if size := dbtest.WALSize(t, path); size <= 0 {
		t.Fatalf("-wal is %d bytes before Close, want the appends in it", size)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if size := dbtest.WALSize(t, path); size != 0 {
		t.Errorf("-wal is %d bytes after Close with another connection open, want 0 (truncated)", size)
	}
	// immutable=1 reads the database file alone, ignoring any WAL.
	alone := rawDB(t, "file:"+path+"?immutable=1")
	if got := dbtest.Value[int64](t, alone, "SELECT COUNT(*) FROM messages WHERE session_id = 's1'"); got != 20 {
		t.Errorf("the database file alone holds %d messages, want 20", got)
	}
}
