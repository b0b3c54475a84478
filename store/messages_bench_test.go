package store

import (
	"context"
	"testing"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// BenchmarkEachMessage streams a 100,000-message session (every fourth row
// of the table another session's) in keyset pages of 500, against the
// bare single statement that reads the whole session at once (upstream's
// get_messages): the pages after the first walk the table by id, so the
// stream stays within a small factor of the one statement instead of
// sorting the rest of the session for every page.
func BenchmarkEachMessage(b *testing.B) {
	ctx := context.Background()
	s, path := openStore(b, nil)
	mustCreate(b, s, NewSession{ID: "long", Source: "cli"})
	mustCreate(b, s, NewSession{ID: "other", Source: "cli"})
	// Why: 133,334 rows in one statement, every fourth of session other.
	dbtest.Exec(b, rawDB(b, path), `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 133334)
		INSERT INTO messages (session_id, role, content, timestamp)
		SELECT CASE WHEN i % 4 = 0 THEN 'other' ELSE 'long' END, 'user', 'message text ' || i, 1000 + i FROM n`)
	compare(b,
		func() error { return s.EachMessage(ctx, "long", func(Message) error { return nil }) },
		func() error {
			_, err := s.q.MessageList(ctx, backend.SQLiteTx(s.r), db.MessageListParams{SessionID: "long", Limit: -1})
			return err
		})
}
