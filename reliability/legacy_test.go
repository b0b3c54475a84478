package reliability

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// The legacy file: legacySessions sessions of legacyPerSession messages.
const legacySessions, legacyPerSession = 500, 100

// buildV6 writes a v6 file at path the way the original's v6 left one
// (migrations up to 6, the rows inserted with plain SQL, in one
// transaction), leaves it closed with no WAL, and returns its rows' digest.
// Session legacy<i> holds conversation("legacy s<i>", legacyPerSession).
func buildV6(t *testing.T, path string) rowsDigest {
	t.Helper()
	ctx := context.Background()
	w, err := sqlite.OpenWriter(ctx, path, sqlite.Config{Retry: sqlite.DefaultRetry()})
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrations.New(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.UpTo(ctx, 6); err != nil {
		t.Fatal(err)
	}
	// One conversation without its label: SQLite prefixes each session's
	// label to the contents (50,000 rows built in Go take seconds under
	// -race).
	type row struct{ Role, Content, ToolCalls, ToolName, ToolCallID, FinishReason string }
	var rows []row
	calls := 0
	for _, m := range conversation("", legacyPerSession) {
		n := m.newMessage()
		rows = append(rows, row{n.Role, *n.Content, string(n.ToolCalls), n.ToolName, n.ToolCallID, n.FinishReason})
		calls += m.Calls
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// Hand-written, as the original's tests write legacy rows. Session i
	// starts at 1.7e9 + i hours, its message j one second after the
	// previous one, and ids follow session then message order.
	if _, err := tx.ExecContext(ctx, `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?1)
		INSERT INTO sessions (id, source, model, started_at, ended_at, end_reason, message_count, tool_call_count, title)
		SELECT 'legacy' || i, 'cli', 'legacy-model', 1.7e9 + i * 3600, 1.7e9 + i * 3600 + ?2, 'user_exit', ?2, ?3, 'Legacy ' || i FROM s`,
		legacySessions, legacyPerSession, calls); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?1)
		INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason)
		SELECT 'legacy' || s.i, m.value ->> 'Role', 'legacy s' || s.i || (m.value ->> 'Content'),
		       NULLIF(m.value ->> 'ToolCallID', ''), NULLIF(m.value ->> 'ToolCalls', ''), NULLIF(m.value ->> 'ToolName', ''),
		       1.7e9 + s.i * 3600 + m.key, NULLIF(m.value ->> 'FinishReason', '')
		FROM s CROSS JOIN json_each(?2) AS m ORDER BY s.i, m.key`,
		legacySessions, string(doc)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// The SQL above wrote what conversation gives, for example in session 17.
	var want []string
	for _, m := range conversation("legacy s17", legacyPerSession) {
		want = append(want, m.Content)
	}
	if got := dbtest.Values[string](t, w, "SELECT content FROM messages WHERE session_id = 'legacy17' ORDER BY id"); !slices.Equal(got, want) {
		t.Fatalf("session legacy17 holds %q, want %q", got, want)
	}
	d := digestOf(t, w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Closing the last connection checkpointed and removed the WAL: the
	// file alone is the database, and copying it copies everything.
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the v6 file kept a WAL (%v)", err)
	}
	if d.Messages != legacySessions*legacyPerSession || d.Sessions != legacySessions {
		t.Fatalf("the v6 file holds %d messages in %d sessions, want %d in %d", d.Messages, d.Sessions,
			legacySessions*legacyPerSession, legacySessions)
	}
	return d
}

// rowsDigest holds the rows every version keeps, as text: each message's
// id, session, role, content, tool calls and timestamp, and each session's
// id, source, counters and title.
type rowsDigest struct {
	Messages, Sessions int64
	rows               string
}

// digestRows selects the rows digestOf keeps as one text, with their
// counts. Hand-written: the text is built by SQLite (group_concat in id
// order) because scanning 50,000 rows into Go under -race takes seconds.
const digestRows = `SELECT
  (SELECT COUNT(*) FROM messages),
  (SELECT COUNT(*) FROM sessions),
  (SELECT group_concat(concat_ws('|', id, session_id, role, content, tool_calls, timestamp), char(10) ORDER BY id) FROM messages)
  || char(10) ||
  (SELECT group_concat(concat_ws('|', id, source, message_count, tool_call_count, title), char(10) ORDER BY id) FROM sessions)`

// digestOf returns the rowsDigest of the file behind q.
func digestOf(t *testing.T, q dbtest.Queryer) rowsDigest {
	t.Helper()
	r := dbtest.Rows(t, q, digestRows)[0]
	return rowsDigest{Messages: r[0].(int64), Sessions: r[1].(int64), rows: r[2].(string)}
}

// checkRows fails the test unless the file behind q holds the rows of want.
func checkRows(t *testing.T, q dbtest.Queryer, want rowsDigest, when string) {
	t.Helper()
	if got := digestOf(t, q); got != want {
		t.Errorf("%s the file holds %d messages and %d sessions (rows equal: %v), want the %d messages and %d sessions written",
			when, got.Messages, got.Sessions, got.rows == want.rows, want.Messages, want.Sessions)
	}
}

// removeDatabase deletes a checked copy and its WAL files (nothing has them
// open any more), so the iterations do not pile up copies on disk.
func removeDatabase(t *testing.T, path string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
}
