package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// openStore opens a store on a new file in t.TempDir() and closes it when the
// test ends.
func openStore(t testing.TB, opts *Options) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	return openAt(t, path, opts), path
}

// openAt opens a store on path and closes it when the test ends.
func openAt(t testing.TB, path string, opts *Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawDB opens path with no setup at all, the way a hand-written legacy file
// or another tool would.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	return dbtest.Plain(t, path)
}

// columns returns a table's column names in order.
func columns(t testing.TB, q db.DBTX, table string) []string {
	t.Helper()
	return dbtest.Values[string](t, q, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
}

// schemaRows returns every sqlite_master row as "type name: sql", sorted.
func schemaRows(t testing.TB, q db.DBTX) []string {
	t.Helper()
	return dbtest.Values[string](t, q, "SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
}

// addSession inserts a session through the write helper.
func addSession(t testing.TB, s *Store, id string, parent *string, startedAt float64) {
	t.Helper()
	err := s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
		_, err := s.q.SessionCreate(ctx, tx, db.SessionCreateParams{ID: id, Source: "cli", ParentSessionID: parent, StartedAt: sqlnum.RealOf(startedAt)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// dbtx is the generated package's DBTX: *sql.DB, *sql.Conn or *sql.Tx.
type dbtx = db.DBTX

// execSQL runs one statement with args on the store's writer connection:
// the reference tests' db._conn.execute(...) hook for backdating sessions
// and hand edits.
func execSQL(t testing.TB, s *Store, query string, args ...any) {
	t.Helper()
	if _, err := s.w.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// nowTS is the reference tests' now = time.time().
func nowTS() float64 { return float64(TimestampOf(time.Now())) }

// stepClock returns a clock for Options.Now that starts at start and
// advances by step on every call: each timestamp the store writes is
// distinct and known, replacing the reference tests' time.sleep(0.01).
func stepClock(start time.Time, step time.Duration) func() time.Time {
	var n atomic.Int64
	return func() time.Time {
		return start.Add(time.Duration(n.Add(1)-1) * step)
	}
}

// mustCreate creates a session and checks CreateSession returns its id.
func mustCreate(t testing.TB, s *Store, n NewSession) {
	t.Helper()
	got, err := s.CreateSession(t.Context(), n)
	if err != nil {
		t.Fatalf("CreateSession(%q): %v", n.ID, err)
	}
	if got != n.ID {
		t.Fatalf("CreateSession(%q) = %q", n.ID, got)
	}
}

// mustAppend appends a message and returns its id.
func mustAppend(t testing.TB, s *Store, id string, m NewMessage) int64 {
	t.Helper()
	msgID, err := s.AppendMessage(t.Context(), id, m)
	if err != nil {
		t.Fatalf("AppendMessage(%q, %s): %v", id, m.Role, err)
	}
	return msgID
}

// mustSession returns session id, failing the test when it cannot.
func mustSession(t testing.TB, s *Store, id string) *Session {
	t.Helper()
	sess, err := s.GetSession(t.Context(), id)
	if err != nil {
		t.Fatalf("GetSession(%q): %v", id, err)
	}
	if sess == nil {
		t.Fatalf("GetSession(%q) = nil, nil", id)
	}
	return sess
}

// assertGone checks that session id does not exist (get_session(id) is None).
func assertGone(t testing.TB, s *Store, id string) {
	t.Helper()
	sess, err := s.GetSession(t.Context(), id)
	if !errors.Is(err, ErrNotFound) || sess != nil {
		t.Errorf("GetSession(%q) = %v, %v; want nil, ErrNotFound", id, sess, err)
	}
}

// mustEnd ends session id with reason.
func mustEnd(t testing.TB, s *Store, id, reason string) {
	t.Helper()
	if err := s.EndSession(t.Context(), id, reason); err != nil {
		t.Fatalf("EndSession(%q, %q): %v", id, reason, err)
	}
}

// backdate sets session id's started_at, the reference tests'
// db._conn.execute("UPDATE sessions SET started_at = ? WHERE id = ?").
func backdate(t testing.TB, s *Store, id string, startedAt float64) {
	t.Helper()
	execSQL(t, s, "UPDATE sessions SET started_at = ? WHERE id = ?", startedAt, id)
}

// decodeJSONText decodes a JSON literal, for comparing with decoded columns.
func decodeJSONText(t testing.TB, text string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("decode %s: %v", text, err)
	}
	return v
}

// decodeJSON decodes JSON the store returned; nil for none.
func decodeJSON(t testing.TB, raw json.RawMessage) any {
	t.Helper()
	if raw == nil {
		return nil
	}
	return decodeJSONText(t, string(raw))
}

// asMaps turns values into the dicts the original returns, through their
// JSON form: the key sets are what the original's dicts hold.
func asMaps[T any](t testing.TB, vs []T) []map[string]any {
	t.Helper()
	out := make([]map[string]any, len(vs))
	for i, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal %+v: %v", v, err)
		}
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
	}
	return out
}

// conversationMaps is get_messages_as_conversation as a list of dicts.
func conversationMaps(t testing.TB, s *Store, id string, includeAncestors bool) []map[string]any {
	t.Helper()
	conv, err := s.Conversation(t.Context(), id, includeAncestors)
	if err != nil {
		t.Fatalf("Conversation(%q, %v): %v", id, includeAncestors, err)
	}
	return asMaps(t, conv)
}

// contents lists the contents of a conversation, [m["content"] for m in conv].
func contents(conv []map[string]any) []any {
	out := make([]any, len(conv))
	for i, m := range conv {
		out[i] = m["content"]
	}
	return out
}
